package io.harbinger.broker.sched;

import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Predictor;

/**
 * Routes by the predictor (seed paper section 3.4), or in shadow mode asks it and routes every
 * message to the default level.
 *
 * <p>Predictive: the level is the prediction's routed level (which respects the predictor's own
 * mode), and a trusted estimate becomes the job's expected cost. Shadow: the default level and no
 * cost, so delivery order is that of static routing while the predictor still predicts and learns.
 * Both learn only what the caller reports through {@link #observe} and {@link #observeCensored}.
 */
final class PredictiveIngress implements IngressPolicy {

  private final Predictor predictor;
  private final boolean shadow;

  PredictiveIngress(Predictor predictor, boolean shadow) {
    this.predictor = predictor;
    this.shadow = shadow;
  }

  @Override
  public String name() {
    return shadow ? Policy.SHADOW.label() : Policy.PREDICTIVE.label();
  }

  @Override
  public void route(Job job) {
    Prediction prediction = predictor.predict(job.key(), job.sizeHint());
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
  public void observe(Job job, double durationNanos) {
    predictor.observe(job.key(), job.sizeHint(), durationNanos);
    if (job.predictedLevel() >= 0) {
      predictor.score(job.predictedLevel(), job.estimateNanos(), durationNanos);
    }
  }

  @Override
  public void observeCensored(Job job) {
    predictor.observeCensored(job.key(), job.sizeHint());
  }
}
