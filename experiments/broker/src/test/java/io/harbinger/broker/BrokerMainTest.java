package io.harbinger.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.scheduler.AgingMode;
import io.harbinger.scheduler.Selection;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BrokerMainTest {

  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = new CommandLine(new BrokerMain());
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  private static BrokerConfig parse(String... args) {
    BrokerMain main = new BrokerMain();
    new CommandLine(main).parseArgs(args);
    return main.toConfig();
  }

  @Test
  void toConfig_weightedPredictive_defaultsToPausingAging() {
    BrokerConfig config =
        parse("--policy", "predictive", "--selection", "weighted", "--lease", "10s");
    assertThat(config.policy()).isEqualTo(Policy.PREDICTIVE);
    assertThat(config.scheduler().selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(config.scheduler().aging()).isEqualTo(AgingMode.PAUSING);
    assertThat(config.lease()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void toConfig_defaults_matchTheReference() {
    BrokerConfig config = parse();
    assertThat(config.policy()).isEqualTo(Policy.FIFO);
    assertThat(config.scheduler().aging()).isEqualTo(AgingMode.PLAIN);
    assertThat(config.scheduler().agingThreshold()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.scheduler().agingInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.lease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.maxRetries()).isEqualTo(3);
  }

  @Test
  void execute_unknownFlag_exitsWithUsageCode() {
    assertThat(run("--frobnicate")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option: '--frobnicate'");
  }

  @Test
  void execute_levelsOutOfRange_exitsWithTheRule() {
    assertThat(run("--levels", "12", "--port", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("levels must be in [2, 10]: 12");
  }

  @Test
  void execute_badPolicyOrDuration_exitsWithTheRule() {
    assertThat(run("--policy", "lifo", "--port", "0")).isEqualTo(2);
    assertThat(err.toString()).contains(": lifo");
    assertThat(run("--lease", "soon", "--port", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--lease must be a duration such as 500ms, 5s or 2m: soon");
  }

  @Test
  void execute_staticMapWithTooFewLevels_exitsWithTheRule() {
    assertThat(run("--policy", "static-tuned", "--levels", "2", "--port", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("must be in [0, 2): 2");
  }

  @Test
  void toConfig_weightedWithOtherLevelsAndNoWeights_isRefused() {
    assertThatThrownBy(() -> parse("--levels", "4", "--selection", "weighted"))
        .hasMessage("--weights must be given for weighted selection with --levels 4");
    assertThat(
            parse("--levels", "4", "--selection", "weighted", "--weights", "8,4,2,1")
                .scheduler()
                .weights())
        .containsExactly(8, 4, 2, 1);
  }

  @Test
  void toConfig_arm_takesPolicySelectionAndAgingFromTheRegistry() {
    BrokerConfig config = parse("--arm", "broker-weighted");
    assertThat(config.policy()).isEqualTo(Policy.PREDICTIVE);
    assertThat(config.scheduler().selection()).isEqualTo(Selection.WEIGHTED);
    assertThat(config.scheduler().aging()).isEqualTo(AgingMode.PAUSING);
    BrokerConfig strict = parse("--arm", "broker-predictive");
    assertThat(strict.policy()).isEqualTo(Policy.PREDICTIVE);
    assertThat(strict.scheduler().selection()).isEqualTo(Selection.STRICT);
    assertThat(strict.scheduler().aging()).isEqualTo(AgingMode.PLAIN);
  }

  @Test
  void execute_armWithPolicyOrUnknownArm_exitsWithTheRule() {
    assertThat(run("--arm", "broker-predictive", "--policy", "fifo")).isEqualTo(2);
    assertThat(err.toString()).contains("--arm sets --policy");
    assertThat(run("--arm", "rabbitmq-fifo")).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "arm must be one of broker-fifo, broker-predictive, broker-weighted: rabbitmq-fifo");
  }
}
