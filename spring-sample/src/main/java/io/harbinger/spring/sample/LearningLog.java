package io.harbinger.spring.sample;

import io.harbinger.predictor.LearningProgress;
import io.harbinger.predictor.Predictor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Logs how far the embedded router has learned whenever that changes: how many job types it trusts,
 * whether levels and the safeguard's first estimate exist, and whether jobs are reordered yet. The
 * same is in {@code /actuator/health} under {@code harbinger.details.learning}.
 */
@Component
class LearningLog implements DisposableBean {

  private static final Logger LOG = LoggerFactory.getLogger(LearningLog.class);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "harbinger-learning-log");
            t.setDaemon(true);
            return t;
          });
  private String last = "";

  LearningLog(ObjectProvider<Predictor> predictor) {
    timer.scheduleWithFixedDelay(
        () -> predictor.ifAvailable(this::logIfChanged), 1, 2, TimeUnit.SECONDS);
  }

  private void logIfChanged(Predictor predictor) {
    LearningProgress p = LearningProgress.of(predictor);
    String state =
        p.reordering() + "/" + p.trustedKeys() + "/" + p.boundaries() + "/" + p.safeguardEstimate();
    if (!state.equals(last)) {
      last = state;
      LOG.info("Harbinger {}", p.describe());
    }
  }

  @Override
  public void destroy() {
    timer.shutdownNow();
  }
}
