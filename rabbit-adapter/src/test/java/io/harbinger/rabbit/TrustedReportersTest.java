package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TrustedReportersTest {

  @Test
  void parse_usersAloneAndWithProducers() {
    TrustedReporters t = TrustedReporters.parse(" worker , billing-worker=billing|shop ");

    assertThat(t.reporters()).containsExactly("worker", "billing-worker");
    assertThat(t.trusts("worker")).isTrue();
    assertThat(t.trusts("bob")).isFalse();
    assertThat(t.trusts(null)).isFalse();
    assertThat(t.mayReportFor("worker", "anyone")).isTrue();
    assertThat(t.mayReportFor("billing-worker", "shop")).isTrue();
    assertThat(t.mayReportFor("billing-worker", "alice")).isFalse();
  }

  @Test
  void parse_badSpecs_areRefusedNamingTheEntry() {
    assertThatThrownBy(() -> TrustedReporters.parse(" , "))
        .hasMessageContaining("at least one trusted reporter is needed");
    assertThatThrownBy(() -> TrustedReporters.parse("worker=billing|"))
        .hasMessageContaining("producer in 'worker=billing|'");
    assertThatThrownBy(() -> TrustedReporters.parse("=shop"))
        .hasMessageContaining("reporter in '=shop'");
    assertThatThrownBy(() -> TrustedReporters.parse("a, a")).hasMessage("reporter listed twice: a");
  }
}
