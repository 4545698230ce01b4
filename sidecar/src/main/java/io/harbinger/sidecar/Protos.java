package io.harbinger.sidecar;

import io.harbinger.predictor.KeyStats;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.PredictorStats;
import io.harbinger.predictor.SafeguardStatus;
import io.harbinger.proto.v1.KeyInfo;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SafeguardInfo;
import io.harbinger.proto.v1.Verdict;

/** Conversions between predictor values and their protobuf messages. */
final class Protos {

  private Protos() {}

  static RoutingMode mode(Mode mode) {
    return switch (mode) {
      case OFF -> RoutingMode.ROUTING_MODE_OFF;
      case SHADOW -> RoutingMode.ROUTING_MODE_SHADOW;
      case PREDICTIVE -> RoutingMode.ROUTING_MODE_PREDICTIVE;
    };
  }

  static Mode mode(RoutingMode mode) {
    return switch (mode) {
      case ROUTING_MODE_OFF -> Mode.OFF;
      case ROUTING_MODE_SHADOW -> Mode.SHADOW;
      case ROUTING_MODE_PREDICTIVE -> Mode.PREDICTIVE;
      case ROUTING_MODE_UNSPECIFIED, UNRECOGNIZED ->
          throw new IllegalArgumentException("mode must be off, shadow or predictive: " + mode);
    };
  }

  static Verdict verdict(Outcome outcome) {
    if (outcome == null) {
      return Verdict.VERDICT_UNSPECIFIED;
    }
    return switch (outcome) {
      case PREDICTED -> Verdict.VERDICT_PREDICTED;
      case OFF -> Verdict.VERDICT_OFF;
      case INVALID_KEY -> Verdict.VERDICT_INVALID_KEY;
      case UNREADY -> Verdict.VERDICT_UNREADY;
      case COLD -> Verdict.VERDICT_COLD;
      case STALE -> Verdict.VERDICT_STALE;
      case CENSORED -> Verdict.VERDICT_CENSORED;
      case SPREAD -> Verdict.VERDICT_SPREAD;
      case MISPREDICTED -> Verdict.VERDICT_MISPREDICTED;
      case BORROWED -> Verdict.VERDICT_BORROWED;
      case UNAVAILABLE -> Verdict.VERDICT_UNSPECIFIED;
    };
  }

  static SafeguardInfo safeguard(PredictorStats stats) {
    SafeguardStatus s = stats.safeguard();
    return SafeguardInfo.newBuilder()
        .setEnabled(s.enabled())
        .setHolding(s.holding())
        .setEstimatedGain(s.estimatedGain())
        .setLoad(s.load())
        .setReports(s.reports())
        .addAllJobShares(s.jobShares())
        .addAllWorkShares(s.workShares())
        .setReason(s.reason())
        .setHolds(s.holds())
        .setHeldPredictions(stats.safeguardHeld())
        .setTailWaitRatio(s.tailWaitRatio())
        .setTailLifting(s.lifting())
        .setTailLifts(s.lifts())
        .setLiftedPredictions(stats.tailLifted())
        .build();
  }

  static RouteEntry entry(String key, Prediction p) {
    return RouteEntry.newBuilder()
        .setKey(key)
        .setLevel(p.predictedLevel())
        .setVerdict(verdict(p.outcome()))
        .setEstimateNanos(Double.isNaN(p.estimateNanos()) ? 0 : p.estimateNanos())
        .build();
  }

  static KeyInfo keyInfo(KeyStats s) {
    return KeyInfo.newBuilder()
        .setKey(s.key())
        .setObservations(s.observations())
        .setMedianNanos(orZero(s.medianNanos()))
        .setP99Nanos(orZero(s.tailNanos()))
        .setCensoredShare(s.censoredShare())
        .setLevel(s.level())
        .setVerdict(verdict(s.verdict()))
        .setLastVerdict(verdict(s.lastOutcome()))
        .setIdleMillis(s.idle().toMillis())
        .build();
  }

  private static double orZero(double v) {
    return Double.isNaN(v) ? 0 : v;
  }
}
