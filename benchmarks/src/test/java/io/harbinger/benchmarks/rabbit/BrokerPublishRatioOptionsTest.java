package io.harbinger.benchmarks.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BrokerPublishRatioOptionsTest {

  @Test
  void parse_nothing_givesTheDefaults() {
    BrokerPublishRatio.Options o = BrokerPublishRatio.Options.parse(new String[0]);

    assertThat(o).isEqualTo(new BrokerPublishRatio.Options("queue", 256, 0, 30, 10_000));
  }

  @Test
  void parse_everyOption_isRead() {
    BrokerPublishRatio.Options o =
        BrokerPublishRatio.Options.parse(
            new String[] {
              "--target",
              "unroutable",
              "--body",
              "4096",
              "--confirm-every",
              "100",
              "--rounds",
              "12",
              "--per-round",
              "5000"
            });

    assertThat(o).isEqualTo(new BrokerPublishRatio.Options("unroutable", 4096, 100, 12, 5000));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--target nowhere | --target must be queue or unroutable, not 'nowhere'",
        "--body -1 | --body must be between 0 and 16777216, not -1",
        "--rounds 2 | --rounds must be between 3 and 10000, not 2",
        "--per-round lots | --per-round must be a whole number, not 'lots'",
        "--confirm-every | --confirm-every needs a value",
        "--queue q | unknown option '--queue'"
      })
  void parse_garbage_namesWhatIsWrong(String args, String message) {
    assertThatThrownBy(() -> BrokerPublishRatio.Options.parse(args.split(" ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
