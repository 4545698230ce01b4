package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.stats.Criterion;
import io.harbinger.experiments.stats.Gate;
import io.harbinger.experiments.stats.PercentileBootstrap;
import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.Regime;
import io.harbinger.experiments.workload.Webhooks;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

  private final StringWriter err = new StringWriter();

  private int execute(String... args) {
    CommandLine cmd = BenchCommand.command(args, CLOCK);
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    return cmd.execute(args);
  }

  private static BenchCommand.Plan plan(String... args) {
    BenchCommand command = new BenchCommand(args, CLOCK);
    new CommandLine(command).parseArgs(args);
    return command.plan();
  }

  @Test
  void plan_quickProfile_usesItsArmsSeedsAndDatedDirectory() {
    BenchCommand.Plan plan = plan("--profile", "quick");

    assertThat(plan.arms()).contains("rabbitmq-fifo", "rabbitmq-predictive", "redis-fifo");
    assertThat(plan.seeds()).containsExactly(11L, 22L, 33L);
    assertThat(plan.handlers()).isEqualTo(HandlerMode.SLEEP);
    assertThat(plan.timeScale()).isEqualTo(10);
    assertThat(plan.rateScale()).isBetween(0.5, 5.0);
    assertThat(plan.out()).isEqualTo(Path.of("experiments/results/bench/quick-2026-11-29"));
  }

  @Test
  void plan_flags_overrideTheProfile() {
    BenchCommand.Plan plan =
        plan(
            "--profile",
            "smoke",
            "--arms",
            "broker-weighted,broker-predictive",
            "--seeds",
            "5,5,6",
            "--handlers",
            "cpu",
            "--time-scale",
            "20",
            "--rate-scale",
            "0.7",
            "--out",
            "x");

    assertThat(plan.arms()).containsExactly("broker-weighted", "broker-predictive");
    assertThat(plan.seeds()).containsExactly(5L, 6L);
    assertThat(plan.handlers()).isEqualTo(HandlerMode.CPU);
    assertThat(plan.timeScale()).isEqualTo(20);
    assertThat(plan.rateScale()).isEqualTo(0.7);
    assertThat(plan.out()).isEqualTo(Path.of("x"));
  }

  @Test
  void plan_directoryWithASavedPlan_takesItsSettingsAndKernelsWithoutMeasuring(@TempDir Path dir)
      throws Exception {
    KernelCalibration kernels = new KernelCalibration(0.01, 0.05, 7.5, 1e-4, 20);
    new SavedPlan(
            HandlerMode.CPU,
            120,
            2.5,
            1,
            java.time.Duration.ofSeconds(90),
            Webhooks.SUCCEEDING,
            Regime.INVERSION,
            kernels)
        .write(dir);

    BenchCommand.Plan plan = plan("--profile", "quick", "--out", dir.toString());

    assertThat(plan.resumed()).isTrue();
    assertThat(plan.handlers()).isEqualTo(HandlerMode.CPU);
    assertThat(plan.kernels()).isEqualTo(kernels);
    assertThat(plan.rateScale()).isEqualTo(2.5);
    assertThat(plan.timeScale()).isEqualTo(1);
    assertThat(plan.arrivalSeconds()).isEqualTo(120);
    assertThat(plan.webhooks()).isEqualTo(Webhooks.SUCCEEDING);
    assertThat(plan.regime()).isEqualTo(Regime.INVERSION);
    assertThat(plan.saved()).isEqualTo(SavedPlan.read(dir).orElseThrow());
    assertThatThrownBy(() -> plan("--handlers", "sleep", "--out", dir.toString()))
        .hasMessageStartingWith("--handlers sleep differs from the cpu of the runs already in ");
    assertThatThrownBy(() -> plan("--regime", "shift", "--out", dir.toString()))
        .hasMessageStartingWith(
            "--regime shift differs from the inversion of the runs already in ");
  }

  @Test
  void plan_rabbitMqUri_pointsTheRabbitMqArmsAtThatBroker() {
    BenchCommand.Plan plan =
        plan("--profile", "smoke", "--rabbitmq-uri", "amqp://guest:guest@127.0.0.1:5674/%2F");

    assertThat(plan.endpoints().rabbitmq())
        .isEqualTo(java.net.URI.create("amqp://guest:guest@127.0.0.1:5674/%2F"));
    assertThat(plan.endpoints().rabbitFactory().getPort()).isEqualTo(5674);
  }

  @Test
  void execute_rabbitMqUriNotAmqp_exitsTwoWithoutThePassword() {
    assertThat(execute("--rabbitmq-uri", "http://guest:secret@127.0.0.1:5674/")).isEqualTo(2);
    assertThat(err.toString())
        .contains("--rabbitmq-uri must be an amqp:// or amqps:// URI")
        .doesNotContain("secret");
    err.getBuffer().setLength(0);
    assertThat(execute("--rabbitmq-uri", "amqp://bad host:5674")).isEqualTo(2);
    assertThat(err.toString()).contains("--rabbitmq-uri must be a URI");
  }

  @Test
  void execute_unknownProfile_exitsTwoNamingTheChoices() {
    assertThat(execute("--profile", "huge")).isEqualTo(2);
    assertThat(err.toString()).contains("--profile must be smoke, quick or full: huge");
  }

  @Test
  void execute_unknownArm_exitsTwoListingTheArms() {
    assertThat(execute("--arms", "rabbitmq-fifo,kafka")).isEqualTo(2);
    assertThat(err.toString())
        .contains("arm must be one of")
        .contains("broker-weighted")
        .contains(": kafka");
  }

  @Test
  void execute_badHandlers_exitsTwo() {
    assertThat(execute("--handlers", "gpu")).isEqualTo(2);
    assertThat(err.toString()).contains("handlers must be cpu or sleep: gpu");
  }

  @Test
  void execute_timeScaleOutOfRange_exitsTwo() {
    assertThat(execute("--time-scale", "0.1")).isEqualTo(2);
    assertThat(err.toString()).contains("timeScale must be in [1, 1000]: 0.1");
  }

  @Test
  void execute_negativeDrain_exitsTwo() {
    assertThat(execute("--drain-seconds", "-1")).isEqualTo(2);
    assertThat(err.toString()).contains("--drain-seconds must be in (0, 86400]: -1.0");
  }

  @Test
  void execute_nonNumericSeed_exitsTwo() {
    assertThat(execute("--seeds", "eleven")).isEqualTo(2);
    assertThat(err.toString()).contains("--seeds").contains("eleven");
  }

  @Test
  void execute_runningBrokerWithTwoBrokerArms_exitsTwoNamingThem() {
    assertThat(
            execute(
                "--broker",
                "127.0.0.1:1",
                "--arms",
                "broker-predictive,broker-weighted,rabbitmq-fifo"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("serves the one policy it was started with")
        .contains("broker-predictive, broker-weighted");
  }

  @Test
  void probe_runningSidecarOrBrokerNotServing_saysHowToStartItOrWhatToUnset() {
    Endpoints closed =
        new Endpoints(
                URI.create("amqp://guest:guest@127.0.0.1:1/%2F"), URI.create("redis://127.0.0.1:1"))
            .withExternal("127.0.0.1:1", null);

    assertThat(RabbitArm.probeSidecar("127.0.0.1:1")).as("nothing listens on port 1").isNotNull();
    assertThatThrownBy(
            () ->
                BenchCommand.probe(
                    List.of("broker-predictive"), closed.withExternal(null, "127.0.0.1:1")))
        .isInstanceOf(BenchCommand.BackendUnavailable.class)
        .hasMessageContaining("the Harbinger broker is not serving at 127.0.0.1:1")
        .hasMessageContaining("HARBINGER_BROKER_ADDRESS");
  }

  @Test
  void probe_rabbitMqDown_saysHowToStartIt() {
    Endpoints closed =
        new Endpoints(
            URI.create("amqp://guest:guest@127.0.0.1:1/%2F"), URI.create("redis://127.0.0.1:1"));

    assertThatThrownBy(() -> BenchCommand.probe(List.of("rabbitmq-fifo"), closed))
        .isInstanceOf(BenchCommand.BackendUnavailable.class)
        .hasMessageContaining("RabbitMQ is not reachable at amqp://guest:***@127.0.0.1:1/%2F")
        .hasMessageContaining("rabbitmq-server -detached");
  }

  @Test
  void probe_redisDown_saysHowToStartIt() {
    Endpoints closed =
        new Endpoints(
            URI.create("amqp://guest:guest@127.0.0.1:1/%2F"), URI.create("redis://127.0.0.1:1"));

    assertThatThrownBy(() -> BenchCommand.probe(List.of("redis-fifo"), closed))
        .isInstanceOf(BenchCommand.BackendUnavailable.class)
        .hasMessageContaining("Redis is not reachable at redis://127.0.0.1:1")
        .hasMessageContaining("redis-server");
  }

  @Test
  void probe_brokerArmsOnly_needsNothingOutside() throws Exception {
    Endpoints closed =
        new Endpoints(
            URI.create("amqp://guest:guest@127.0.0.1:1/%2F"), URI.create("redis://127.0.0.1:1"));

    BenchCommand.BackendVersions versions =
        BenchCommand.probe(List.of("broker-predictive", "broker-weighted"), closed);

    assertThat(versions.rabbitmq()).isNull();
    assertThat(versions.redis()).isNull();
  }

  @Test
  void projectTargets_withStaticTuned_judgesAllSixTargets() {
    List<Criterion> targets =
        BenchCommand.projectTargets(
            List.of("rabbitmq-fifo", "rabbitmq-static-tuned", "rabbitmq-predictive"));

    assertThat(targets)
        .extracting(Criterion::id)
        .containsExactly("T1", "T2", "T3", "T4", "T5", "T6");
  }

  @Test
  void projectTargets_withTheOracle_judgesTheGapToItInPoints() {
    List<Criterion> targets =
        BenchCommand.projectTargets(
            List.of("rabbitmq-fifo", "rabbitmq-predictive", "rabbitmq-oracle", "rabbitmq-sidecar"));

    assertThat(targets)
        .extracting(Criterion::id)
        .containsExactly("T1", "T2", "T3", "T4", "T5", "T7");
    assertThat(targets.getLast())
        .isEqualTo(
            new Criterion.GapToReference(
                "T7", "mean_ms", "rabbitmq-predictive", "rabbitmq-oracle", "rabbitmq-fifo", 0.02));
  }

  @Test
  void projectTargets_judgeTheDefaultAdapterArmAlone() {
    List<Criterion> targets =
        BenchCommand.projectTargets(
            List.of("rabbitmq-fifo", "rabbitmq-oracle", "rabbitmq-lanes", "rabbitmq-predictive"));

    assertThat(targets).hasSize(6);
    assertThat(targets).allMatch(c -> c.arm().equals("rabbitmq-predictive"));
    assertThat(targets)
        .extracting(Criterion::id)
        .containsExactly("T1", "T2", "T3", "T4", "T5", "T7");
    // One gate judges them all, so their ids must differ.
    assertThat(new Gate(targets, new PercentileBootstrap(100, 1, 0.95)).criteria()).hasSize(6);
  }

  @Test
  void projectTargets_withoutFifo_judgesNothing() {
    assertThat(BenchCommand.projectTargets(List.of("rabbitmq-predictive", "rabbitmq-oracle")))
        .isEmpty();
  }

  @Test
  void plan_badWebhooks_exitsTwoNamingTheChoices() {
    assertThat(execute("--webhooks", "flaky")).isEqualTo(2);
    assertThat(err.toString()).contains("webhooks must be failing or succeeding: flaky");
  }

  @Test
  void plan_badRegime_exitsTwoNamingTheChoices() {
    assertThat(execute("--regime", "upside-down")).isEqualTo(2);
    assertThat(err.toString()).contains("regime must be shift or inversion: upside-down");
  }

  @Test
  void projectTargets_withoutFifo_isEmpty() {
    assertThat(BenchCommand.projectTargets(List.of("rabbitmq-predictive", "broker-predictive")))
        .isEmpty();
  }
}
