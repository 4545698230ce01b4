package io.harbinger.benchmarks.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.benchmarks.rabbit.BrokerPublishRatio.Config;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BrokerPublishRatioOptionsTest {

  @Test
  void parse_nothing_givesAllEightConfigurationsAndTheDefaults() {
    BrokerPublishRatio.Options o = BrokerPublishRatio.Options.parse(new String[0]);

    assertThat(o.configs()).hasSize(8).doesNotHaveDuplicates();
    assertThat(o.configs())
        .extracting(Config::target, Config::bodyBytes, Config::confirmEvery)
        .hasSize(8);
    assertThat(o.configs().stream().map(Config::target).distinct()).hasSize(2);
    assertThat(o.configs().stream().map(Config::bodyBytes).distinct()).containsExactly(256, 4096);
    assertThat(o.configs().stream().map(Config::confirmEvery).distinct()).containsExactly(0, 100);
    assertThat(o.rounds()).isEqualTo(30);
    assertThat(o.perRound()).isEqualTo(20_000);
    assertThat(o.warmup()).isEqualTo(3);
    assertThat(o.brokerPid()).isZero();
  }

  @Test
  void parse_everyOption_isRead() {
    BrokerPublishRatio.Options o =
        BrokerPublishRatio.Options.parse(
            new String[] {
              "--only",
              "unroutable/4096/100, queue/256/0",
              "--rounds",
              "12",
              "--per-round",
              "5000",
              "--warmup",
              "0",
              "--broker-pid",
              "4242"
            });

    assertThat(o)
        .isEqualTo(
            new BrokerPublishRatio.Options(
                List.of(new Config("unroutable", 4096, 100), new Config("queue", 256, 0)),
                12,
                5000,
                0,
                4242));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--only nowhere/256/0 | a configuration's target must be queue or unroutable, not 'nowhere'",
        "--only queue/256 | a configuration is target/body/confirm-every, such as queue/4096/100,"
            + " not 'queue/256'",
        "--only queue/-1/0 | body of queue/-1/0 must be between 0 and 16777216, not -1",
        "--only queue/256/often | confirm-every of queue/256/often must be a whole number,"
            + " not 'often'",
        "--rounds 2 | --rounds must be between 3 and 10000, not 2",
        "--per-round lots | --per-round must be a whole number, not 'lots'",
        "--warmup | --warmup needs a value",
        "--target queue | unknown option '--target'"
      })
  void parse_garbage_namesWhatIsWrong(String args, String message) {
    assertThatThrownBy(() -> BrokerPublishRatio.Options.parse(args.split(" ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void verdict_targetAppliesOnlyWhereIdentityReachesIt() {
    assertThat(BrokerPublishRatio.verdict(0.99, 0.975)).isEqualTo("met");
    assertThat(BrokerPublishRatio.verdict(0.99, 0.969)).isEqualTo("MISSED");
    assertThat(BrokerPublishRatio.verdict(0.95, 0.90))
        .isEqualTo("not applicable (identity / raw 0.950 < 0.97)");
  }
}
