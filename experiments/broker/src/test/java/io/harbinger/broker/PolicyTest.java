package io.harbinger.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.ManualTicker;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.scheduler.IngressPolicy;
import io.harbinger.scheduler.QueuedJob;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyTest {

  private final ManualTicker ticker = new ManualTicker();

  private static QueuedJob job(String jobType, int oracleTier) {
    return new QueuedJob(Keys.of("shop", jobType), jobType, -1, oracleTier);
  }

  private static int route(IngressPolicy policy, QueuedJob job) {
    policy.route(job);
    return job.level();
  }

  @Test
  void fifo_everyMessage_goesToLevelZero() {
    IngressPolicy fifo = Policy.FIFO.newIngress(3, null);
    assertThat(route(fifo, job("export_report", 2))).isZero();
  }

  @Test
  void staticMaps_followReferenceTablesAndDefaultUnmapped() {
    IngressPolicy tuned = Policy.STATIC_TUNED.newIngress(3, null);
    assertThat(route(tuned, job("reserve_inventory", -1))).isZero();
    assertThat(route(tuned, job("send_sms", -1))).isEqualTo(1);
    assertThat(route(tuned, job("export_report", -1))).isEqualTo(2);
    assertThat(route(tuned, job("unheard_of", -1))).isEqualTo(1);
  }

  @Test
  void staticMap_twoLevels_isRefusedWithTheRule() {
    assertThatThrownBy(() -> Policy.STATIC_TUNED.newIngress(2, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be in [0, 2): 2");
  }

  @Test
  void oracle_tierInRange_isUsedElseDefault() {
    IngressPolicy oracle = Policy.ORACLE.newIngress(3, null);
    assertThat(route(oracle, job("x", 2))).isEqualTo(2);
    assertThat(route(oracle, job("x", 0))).isZero();
    assertThat(route(oracle, job("x", 3))).isEqualTo(1);
    assertThat(route(oracle, job("x", -1))).isEqualTo(1);
  }

  @Test
  void predictive_withoutPredictor_isRefused() {
    assertThatThrownBy(() -> Policy.PREDICTIVE.newIngress(3, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("policy predictive needs a predictor");
  }

  @Test
  void predictiveAndShadow_learnedKeys_routeByEstimateOrUntrustedLast() {
    HistogramPredictor predictor =
        new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);
    IngressPolicy predictive = Policy.PREDICTIVE.newIngress(3, predictor);
    // The scheduling core's shadow ingress on the same predictor (no arm runs it).
    IngressPolicy shadow = IngressPolicy.shadow("shadow", predictor);
    // teach a fast, a medium and a slow key through the policy's own learning path
    for (int i = 0; i < 400; i++) {
      for (String type : List.of("fast", "medium", "slow")) {
        QueuedJob j = job(type, -1);
        predictive.route(j);
        double millis = Map.of("fast", 2.0, "medium", 30.0, "slow", 600.0).get(type);
        predictive.observe(j, Duration.ofMillis((long) millis).toNanos() * (1 + (i % 7) / 100.0));
      }
    }
    QueuedJob fast = job("fast", -1);
    QueuedJob slow = job("slow", -1);
    assertThat(route(predictive, fast)).isZero();
    assertThat(fast.costNanos()).isBetween(1.5e6, 2.5e6);
    assertThat(route(predictive, slow)).isEqualTo(2);

    QueuedJob shadowFast = job("fast", -1);
    assertThat(route(shadow, shadowFast)).isEqualTo(1);
    assertThat(shadowFast.predictedLevel()).isZero();
    assertThat(shadowFast.costNanos()).isNaN();

    // A key never seen goes last by default, with no cost; in shadow mode it stays at the default.
    QueuedJob cold = job("never_seen", -1);
    assertThat(route(predictive, cold)).isEqualTo(2);
    assertThat(cold.costNanos()).isNaN();
    QueuedJob shadowCold = job("never_seen", -1);
    assertThat(route(shadow, shadowCold)).isEqualTo(1);
    assertThat(shadowCold.predictedLevel()).isEqualTo(1);
  }

  @Test
  void policyLabels_roundTripAndBadLabelIsRefused() {
    for (Policy p : Policy.values()) {
      assertThat(Policy.fromLabel(p.label())).isEqualTo(p);
    }
    assertThatThrownBy(() -> Policy.fromLabel("lifo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith(": lifo");
  }
}
