package io.harbinger.launcher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

  @Test
  void demo_rabbitUnreachable_saysSoAndHowToStartIt() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        new CommandLine(new DemoCommand(new PrintStream(out, true, StandardCharsets.UTF_8)))
            .execute("--uri", "amqp://guest:guest@127.0.0.1:1/%2F");
    assertThat(code).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("RabbitMQ is not reachable at 127.0.0.1:1")
        .contains("rabbitmq-server -detached");
  }

  @Test
  void demo_badOptions_exitWithUsageErrors() {
    CommandLine cli =
        new CommandLine(new DemoCommand(new PrintStream(new ByteArrayOutputStream())));
    cli.setErr(new java.io.PrintWriter(new ByteArrayOutputStream()));
    assertThat(cli.execute("--time-scale", "0")).isEqualTo(2);
    assertThat(cli.execute("--time-scale", "abc")).isEqualTo(2);
    assertThat(cli.execute("--uri", "http://nope")).isEqualTo(2);
  }

  @Test
  void plan_sameSeed_sameJobsAndTheDocumentedLoad() {
    List<DemoWorkload.Job> a = DemoWorkload.plan(7, 1.0);
    assertThat(DemoWorkload.plan(7, 1.0)).isEqualTo(a);
    assertThat(DemoWorkload.plan(8, 1.0)).isNotEqualTo(a);
    // 35 s of arrivals at a mean load of (10*0.70 + 15*1.35 + 10*0.60)/35 of 48.6 jobs/s: about
    // 1,650 jobs.
    assertThat(a).hasSizeBetween(1_500, 1_800);
    assertThat(DemoWorkload.meanCostMillis())
        .isCloseTo(82.3, org.assertj.core.api.Assertions.within(0.01));
    // Scaling time keeps the number of jobs and the load.
    assertThat(DemoWorkload.plan(7, 0.1).size()).isEqualTo(a.size());
  }

  @Test
  void percentile_isNearestRank() {
    List<Long> values = List.of(5_000_000L, 1_000_000L, 3_000_000L, 2_000_000L, 4_000_000L);
    assertThat(DemoReport.percentile(values, 50)).isEqualTo(3.0);
    assertThat(DemoReport.percentile(values, 99)).isEqualTo(5.0);
    assertThat(DemoReport.percentile(values, 20)).isEqualTo(1.0);
    assertThat(DemoReport.percentile(List.of(), 50)).isNaN();
  }
}
