package io.harbinger.scheduler;

import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Predictor;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Routes by the predictor (seed paper section 3.4), or in shadow mode asks it and routes every
 * message to the default level: the one predictive path of the broker and the simulator.
 *
 * <p>Predictive: the level is the prediction's routed level (which respects the predictor's own
 * mode), and a trusted estimate becomes the job's expected cost. Shadow: the default level and no
 * cost, so delivery order is that of static routing while the predictor still predicts and learns.
 * Both learn only what the caller reports through {@link #observe} and {@link #observeCensored},
 * and score the prediction made at ingress against the observed duration. Each prediction's outcome
 * is counted ({@link #outcomes}).
 *
 * <p>Thread-safe when the predictor is.
 */
public final class PredictiveIngress implements IngressPolicy {

  private final String name;
  private final Predictor predictor;
  private final boolean shadow;
  private final AtomicLongArray outcomes = new AtomicLongArray(Outcome.values().length);

  PredictiveIngress(String name, Predictor predictor, boolean shadow) {
    this.name = Objects.requireNonNull(name, "name");
    this.predictor = Objects.requireNonNull(predictor, "predictor");
    this.shadow = shadow;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void route(QueuedJob job) {
    Prediction prediction = predictor.predict(job.key(), job.sizeHint());
    outcomes.incrementAndGet(prediction.outcome().ordinal());
    job.recordPrediction(prediction.predictedLevel(), prediction.estimateNanos());
    if (shadow) {
      job.place(predictor.defaultLevel());
    } else if (prediction.isPredicted() && prediction.level() == prediction.predictedLevel()) {
      job.place(prediction.level(), prediction.estimateNanos());
    } else {
      job.place(prediction.level());
    }
  }

  @Override
  public void observe(QueuedJob job, double durationNanos) {
    predictor.observe(job.key(), job.sizeHint(), durationNanos);
    if (job.predictedLevel() >= 0) {
      predictor.score(job.predictedLevel(), job.estimateNanos(), durationNanos);
    }
  }

  @Override
  public void observeCensored(QueuedJob job) {
    predictor.observeCensored(job.key(), job.sizeHint());
  }

  /**
   * Returns how many routed jobs had each prediction outcome.
   *
   * @return counts indexed by {@link Outcome#ordinal()}
   */
  public long[] outcomes() {
    long[] out = new long[outcomes.length()];
    for (int i = 0; i < out.length; i++) {
      out[i] = outcomes.get(i);
    }
    return out;
  }
}
