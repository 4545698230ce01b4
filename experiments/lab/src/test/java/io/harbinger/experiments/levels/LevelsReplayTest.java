package io.harbinger.experiments.levels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.experiments.analysis.RunMetrics;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.Phase;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.Webhooks;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import io.harbinger.predictor.PredictorTuning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LevelsReplayTest {

  private static final long MS = 1_000_000;

  private static Job job(int seq, JobType type, long arrivalMillis, double millis, double failed) {
    return new Job(
        seq, type, Phase.STEADY, arrivalMillis * MS, 0, 0, millis, failed, millis + failed, 0);
  }

  private static Workload handBuilt(List<Job> jobs) {
    return new Workload(new WorkloadConfig(1, 10, 1, 1), KernelCalibration.REFERENCE, jobs);
  }

  private static double mean(RunRecord run) {
    return RunMetrics.of(run).all().meanMillis();
  }

  @Test
  void replay_fifo_servesFourAtATimeInArrivalOrderAndRetriesAtTheHead() {
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      jobs.add(job(i, JobType.SEND_SMS, 0, 100, 0));
    }
    // Arrives last, fails its first attempt after 50 ms, and is retried before job 4 is served.
    jobs.add(job(5, JobType.DELIVER_WEBHOOK, 0, 10, 50));
    LevelsReplay.ReplayClock clock = new LevelsReplay.ReplayClock();
    RunRecord run =
        LevelsReplay.replay(handBuilt(jobs), Placement.fifo(), clock, Duration.ZERO, null);
    List<MessageRecord> m = run.messages();
    for (int i = 0; i < 4; i++) {
      assertThat(m.get(i).endNanos()).isEqualTo(100 * MS);
    }
    // Jobs 4 and 5 start when the first four end; 5's first attempt fails at 150 ms and its retry
    // goes to the head of the queue, so it takes the next free worker at once.
    assertThat(m.get(4).firstStartNanos()).isEqualTo(100 * MS);
    assertThat(m.get(5).firstStartNanos()).isEqualTo(100 * MS);
    assertThat(m.get(5).startNanos()).isEqualTo(150 * MS);
    assertThat(m.get(5).endNanos()).isEqualTo(160 * MS);
    assertThat(m.get(5).attempts()).isEqualTo(2);
    assertThat(m.get(4).endNanos()).isEqualTo(200 * MS);
  }

  @Test
  void replay_oracle_letsACheapLateJobPassQueuedExpensiveOnes() {
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      jobs.add(job(i, JobType.EXPORT_REPORT, 0, 1000, 0));
    }
    for (int i = 8; i < 12; i++) {
      jobs.add(job(i, JobType.RESERVE_INVENTORY, 1, 5, 0));
    }
    Workload w = handBuilt(jobs);
    LevelsReplay.ReplayClock clock = new LevelsReplay.ReplayClock();
    RunRecord oracle = LevelsReplay.replay(w, Placement.oracle(w, 3), clock, Duration.ZERO, null);
    RunRecord fifo =
        LevelsReplay.replay(
            w, Placement.fifo(), new LevelsReplay.ReplayClock(), Duration.ZERO, null);
    assertThat(oracle.messages().get(8).firstStartNanos()).isEqualTo(1000 * MS);
    assertThat(fifo.messages().get(8).firstStartNanos()).isEqualTo(2000 * MS);
  }

  @Test
  void replay_succeedingSlowWebhooks_predictorKeepsUpWithTheNaiveMedian() {
    // The independent harness's case (seed 44): before untrusted keys were placed by their
    // evidence, or at the last level, the webhook's slow tail sent it to the middle level and cost
    // about 12 points.
    Workload w =
        Workload.generate(
            new WorkloadConfig(44, 300, 1.733, 1, Webhooks.SUCCEEDING),
            KernelCalibration.REFERENCE);
    double fifo = mean(run(w, "fifo"));
    double naive = mean(run(w, "naive")) / fifo - 1;
    double oracle = mean(run(w, "oracle")) / fifo - 1;
    double predictive = mean(run(w, "predictive")) / fifo - 1;
    double paper = mean(run(w, "predictive:demoteUntrusted=false:untrustedLast=false")) / fifo - 1;
    assertThat(oracle).isLessThan(naive);
    assertThat(predictive).isLessThan(naive + 0.01);
    assertThat(paper).isGreaterThan(naive + 0.05);
  }

  private static RunRecord run(Workload w, String arm) {
    LevelsReplay.ReplayClock clock = new LevelsReplay.ReplayClock();
    return LevelsReplay.replay(
        w, LevelsReplay.placement(arm, w, clock), clock, Duration.ofMillis(5), null);
  }

  /** Exports at level 2, everything else at level 0. */
  private static Placement exportsLast() {
    return new Placement() {
      @Override
      public int levels() {
        return 3;
      }

      @Override
      public Decision place(Job job, long nowNanos) {
        return new Decision(job.type() == JobType.EXPORT_REPORT ? 2 : 0, "fixed", Double.NaN);
      }

      @Override
      public void learned(Job job, double handlerNanos) {}

      @Override
      public java.util.Optional<double[]> boundariesMillis() {
        return java.util.Optional.empty();
      }
    };
  }

  @Test
  void replay_weightedLanes_boundTheExpensiveJobsWaitUnderCheapWork_strictStarvesIt() {
    // 8 exports (1 s) at t=0: four run at once, four wait at level 2; then 4,000 cheap jobs (5 ms,
    // 5 s of work on 4 workers) at level 0. Strict serves every cheap job first; weights 8:3:1 give
    // level 2 its share of the worker time (1/9 with level 1 empty) while level 0 is backlogged.
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      jobs.add(job(i, JobType.EXPORT_REPORT, 0, 1000, 0));
    }
    for (int i = 8; i < 4008; i++) {
      jobs.add(job(i, JobType.RESERVE_INVENTORY, 1, 5, 0));
    }
    Workload w = handBuilt(jobs);
    RunRecord strict =
        LevelsReplay.replay(
            w, exportsLast(), new LevelsReplay.ReplayClock(), Duration.ZERO, null, null);
    RunRecord weighted =
        LevelsReplay.replay(
            w,
            exportsLast(),
            new LevelsReplay.ReplayClock(),
            Duration.ZERO,
            null,
            LevelsReplay.serving("x@weights=8/3/1", w, 3));
    // The first waiting export: strict starts it after the whole cheap backlog, weights within the
    // first few pulls after the four running exports end at 1 s (its level's clock had been charged
    // only 1 ms per export, no duration being known yet).
    assertThat(strict.messages().get(4).firstStartNanos()).isGreaterThanOrEqualTo(5_000 * MS);
    assertThat(weighted.messages().get(4).firstStartNanos()).isLessThan(1_100 * MS);
    // Nothing is lost either way.
    assertThat(weighted.messages()).allMatch(MessageRecord::completed);
  }

  @Test
  void serving_specs_parseAndBadOnesAreRefused() {
    Workload w = handBuilt(List.of(job(0, JobType.SEND_SMS, 0, 1, 0)));
    assertThat(LevelsReplay.serving("oracle", w, 3)).isNull();
    var weighted = LevelsReplay.serving("oracle@weights=4/2/1", w, 3);
    assertThat(weighted.weights()).containsExactly(4, 2, 1);
    assertThat(weighted.aging()).isEqualTo(io.harbinger.scheduler.AgingMode.PAUSING);
    assertThat(LevelsReplay.serving("oracle@weights=4/2/1+no_aging", w, 3).aging())
        .isEqualTo(io.harbinger.scheduler.AgingMode.NONE);
    assertThat(LevelsReplay.serving("oracle@strict", w, 3).selection())
        .isEqualTo(io.harbinger.scheduler.Selection.STRICT);
    assertThatThrownBy(() -> LevelsReplay.serving("oracle@fast", w, 3))
        .hasMessageContaining("serving must be @strict");
    assertThatThrownBy(() -> LevelsReplay.serving("oracle@weights=8/0/1", w, 3))
        .hasMessageContaining("weights must each be in [1, 1000]");
    assertThatThrownBy(() -> LevelsReplay.serving("oracle@weights=8/1", w, 3))
        .hasMessageContaining("one entry per level");
  }

  @Test
  void placement_badNames_areRefusedWithTheRule() {
    Workload w = handBuilt(List.of(job(0, JobType.SEND_SMS, 0, 1, 0)));
    LevelsReplay.ReplayClock clock = new LevelsReplay.ReplayClock();
    assertThatThrownBy(() -> LevelsReplay.placement("lifo", w, clock))
        .hasMessageStartingWith("arm must be fifo, oracle");
    assertThatThrownBy(() -> LevelsReplay.placement("predictive:levels", w, clock))
        .hasMessage("an override must be NAME=VALUE: levels");
    assertThatThrownBy(() -> LevelsReplay.placement("predictive:colour=red", w, clock))
        .hasMessage("unknown override: colour");
    assertThatThrownBy(() -> LevelsReplay.placement("predictive:staleAfter=soon", w, clock))
        .hasMessage("staleAfter must be seconds in [0, 1e9]: soon");
    assertThatThrownBy(() -> LevelsReplay.placement("predictive:idleHalfLife=-1", w, clock))
        .hasMessage("idleHalfLife must be seconds in [0, 1e9]: -1");
    assertThat(LevelsReplay.placement("predictive:idleHalfLife=600:staleAfter=1800", w, clock))
        .isNotNull();
    assertThat(LevelsReplay.placement("predictive-5:minObservations=5", w, clock).levels())
        .isEqualTo(5);
    assertThat(PredictorTuning.defaults().demoteUntrusted()).isTrue();
    assertThat(LevelsReplay.predictor("predictive:demoteUntrusted=false:minObservations=5"))
        .satisfies(p -> assertThat(p.tuning().demoteUntrusted()).isFalse())
        .satisfies(p -> assertThat(p.config().minObservations()).isEqualTo(5));
  }

  @Test
  void main_badFlags_exitTwoNamingTheProblem() {
    java.io.PrintStream saved = System.err;
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertThat(new picocli.CommandLine(new LevelsReplay()).execute("--webhooks", "flaky"))
          .isEqualTo(2);
      assertThat(new picocli.CommandLine(new LevelsReplay()).execute("--arms", "fifo,lifo"))
          .isEqualTo(2);
      assertThat(new picocli.CommandLine(new LevelsReplay()).execute("--arrival-seconds", "0"))
          .isEqualTo(2);
    } finally {
      System.setErr(saved);
    }
    assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("harbinger levels: webhooks must be failing or succeeding: flaky")
        .contains("harbinger levels: arm must be fifo, oracle")
        .contains("harbinger levels: arrivalSeconds must be in [1, 86400]: 0.0");
  }
}
