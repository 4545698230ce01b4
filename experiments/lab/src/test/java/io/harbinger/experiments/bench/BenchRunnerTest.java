package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.experiments.workload.HandlerMode;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.KernelCalibration;
import io.harbinger.experiments.workload.MessageRecord;
import io.harbinger.experiments.workload.RunRecord;
import io.harbinger.experiments.workload.Service;
import io.harbinger.experiments.workload.Workload;
import io.harbinger.experiments.workload.WorkloadConfig;
import io.harbinger.predictor.Ticker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

class BenchRunnerTest {

  private static final Workload WORKLOAD =
      Workload.generate(new WorkloadConfig(22, 30, 1.0, 100), KernelCalibration.REFERENCE);

  private final ByteArrayOutputStream progress = new ByteArrayOutputStream();

  private BenchRunner runner(Duration drain) {
    return new BenchRunner(
        Ticker.SYSTEM, nanos -> {}, drain, new PrintStream(progress, true, StandardCharsets.UTF_8));
  }

  @Test
  void run_reliableArm_completesEveryJobAndRetriesFailingWebhooks() throws Exception {
    RunRecord run =
        runner(Duration.ofSeconds(10))
            .run(new MemoryArm(seq -> false), WORKLOAD, HandlerMode.SLEEP, null);

    assertThat(run.messages()).hasSize(WORKLOAD.jobs().size());
    assertThat(run.messages()).allMatch(MessageRecord::completed);
    for (Job job : WORKLOAD.jobs()) {
      assertThat(run.messages().get((int) job.seq()).attempts())
          .as("attempts of job %d", job.seq())
          .isEqualTo(job.failsFirstAttempt() ? 2 : 1);
    }
    assertThat(WORKLOAD.jobs()).anyMatch(Job::failsFirstAttempt);
    assertThat(run.attributes()).containsEntry("drained", "true");
    assertThat(progress.toString(StandardCharsets.UTF_8)).contains("\r").contains("memory-fifo");
  }

  @Test
  void run_armDroppingAMessage_recordsItLostAfterTheDrainBound() throws Exception {
    RunRecord run =
        runner(Duration.ofMillis(300))
            .run(new MemoryArm(seq -> seq == 5), WORKLOAD, HandlerMode.SLEEP, null);

    assertThat(run.messages().get(5).outcome()).isEqualTo(MessageRecord.Disposition.LOST);
    assertThat(run.messages().stream().filter(m -> !m.completed())).hasSize(1);
    assertThat(run.attributes()).containsEntry("drained", "false");
  }

  @Test
  void run_publishFailure_countsSubmitErrorAndLosesTheJob() throws Exception {
    MemoryArm arm = new MemoryArm(seq -> false);
    arm.failPublishOf = 7;

    RunRecord run = runner(Duration.ofMillis(300)).run(arm, WORKLOAD, HandlerMode.SLEEP, null);

    assertThat(run.submitErrors()).isEqualTo(1);
    assertThat(run.messages().get(7).outcome()).isEqualTo(MessageRecord.Disposition.LOST);
  }

  /** An in-memory FIFO arm: one queue, four worker threads, requeue at the head on failure. */
  private static final class MemoryArm implements BenchArm {
    private final LongPredicate drop;
    private long failPublishOf = -1;

    MemoryArm(LongPredicate drop) {
      this.drop = drop;
    }

    @Override
    public String name() {
      return "memory-fifo";
    }

    @Override
    public Backend backend() {
      return Backend.NONE;
    }

    @Override
    public Session open(Endpoints endpoints, double timeScale, Worker worker) {
      BlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
      List<Thread> threads = new ArrayList<>();
      boolean[] running = {true};
      for (int i = 0; i < BenchRunner.WORKERS; i++) {
        threads.add(
            Thread.ofPlatform()
                .daemon()
                .start(
                    () -> {
                      try {
                        while (running[0]) {
                          byte[] body = queue.poll(20, TimeUnit.MILLISECONDS);
                          if (body != null && !worker.deliver(body)) {
                            queue.add(body);
                          }
                        }
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }));
      }
      return new Session() {
        @Override
        public Publisher publisher(Service service) {
          return job -> {
            if (job.seq() == failPublishOf) {
              throw new IllegalStateException("refused");
            }
            if (!drop.test(job.seq())) {
              queue.add(job.payloadJson().getBytes(StandardCharsets.UTF_8));
            }
          };
        }

        @Override
        public Map<String, String> attributes() {
          return Map.of("broker", "memory");
        }

        @Override
        public void close() {
          running[0] = false;
          for (Thread t : threads) {
            t.interrupt();
          }
        }
      };
    }
  }
}
