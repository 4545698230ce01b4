package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One producer's reports against another producer's levels: the two reports floods of the issue,
 * replayed beside a service with a few job types, and the caps of {@link ProducerWeights}.
 */
class ProducerCapTest {

  private static final double MS = 1_000_000;

  /** The service's job types: two of about 2 ms, a 37 ms e-mail and a 3 s export. */
  private static final String[] TYPES = {
    "reserve_inventory", "quote_price", "send_email", "export_report"
  };

  private static final double[] MEDIANS = {2 * MS, 2.3 * MS, 37 * MS, 3_000 * MS};

  /** Reports per cycle of each type: 4, 4, 6 and 1 in 15. */
  private static final int[] MIX = {4, 4, 6, 1};

  /** The service's history before another producer starts: hours of its traffic. */
  private static final int HISTORY = 200_000;

  private static final String SHORT_FLOOD = Keys.of("mallory", "ping");
  private static final String LONG_FLOOD = Keys.of("mallory", "slow");

  /** The service: its reports, deterministic, with 10% lognormal jitter. */
  private static final class Service {
    private final Random random = new Random(7);
    private final int[] cycle;
    private int next;

    Service() {
      List<Integer> types = new ArrayList<>();
      for (int t = 0; t < MIX.length; t++) {
        for (int i = 0; i < MIX[t]; i++) {
          types.add(t);
        }
      }
      Collections.shuffle(types, new Random(1));
      cycle = types.stream().mapToInt(Integer::intValue).toArray();
    }

    void report(Predictor p, int count) {
      for (int i = 0; i < count; i++) {
        int t = cycle[next++ % cycle.length];
        p.observe(Keys.of("shop", TYPES[t]), MEDIANS[t] * Math.exp(0.1 * random.nextGaussian()));
      }
    }
  }

  /** The levels the service's keys are routed at (a route table's view: no held levels). */
  private static int[] levels(Predictor p) {
    int[] levels = new int[TYPES.length];
    for (int t = 0; t < TYPES.length; t++) {
      Prediction prediction = p.peek(Keys.of("shop", TYPES[t]));
      assertThat(prediction.outcome()).isEqualTo(Outcome.PREDICTED);
      levels[t] = prediction.level();
    }
    return levels;
  }

  private static void flood(Predictor p, String key, int count, double nanos) {
    for (int i = 0; i < count; i++) {
      p.observe(key, nanos);
    }
  }

  /**
   * The long-run share of a producer that sent {@code own} reports right after {@code others}
   * reports of everyone else: the documented rule (long-run decay 0.9999^(1/64) per report), as an
   * oracle.
   */
  private static double longRunShare(int others, int own) {
    double d = Math.pow(0.9999, 1.0 / ProducerWeights.LONG_MEMORY);
    double ownWeight = 1 - Math.pow(d, own);
    double othersWeight = Math.pow(d, own) * (1 - Math.pow(d, others));
    return ownWeight / (ownWeight + othersWeight);
  }

  private static double limit(double longRunShare) {
    return Math.max(ProducerWeights.NEWCOMER_SHARE, ProducerWeights.LONG_RUN_FACTOR * longRunShare);
  }

  @Test
  void observe_4096ShortReportsFromAnotherProducer_leaveTheServicesLevels() {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), new ManualTicker(), Mode.PREDICTIVE);
    new Service().report(p, HISTORY);
    int[] before = levels(p);
    double[] boundaries = p.boundaries().orElseThrow().toArray();
    assertThat(before).containsExactly(0, 0, 1, 2);

    // Without the cap these 4,096 reports hold a third of the pooled weight and pull the first
    // boundary from 2.53 ms to 2.26 ms, below the 2.3 ms job type, which falls to level 1.
    flood(p, SHORT_FLOOD, 4_096, 1 * MS);

    assertThat(levels(p)).containsExactly(before);
    assertThat(p.boundaries().orElseThrow().toArray()).containsExactly(boundaries);
    assertThat(p.predict(SHORT_FLOOD).level()).isZero();
    assertThat(p.holdsFifoOrder()).isFalse();
  }

  @Test
  void observe_then20000ReportsOf30Minutes_moveTheServiceAtMostOneLevelAndKeepItsOrder() {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), new ManualTicker(), Mode.PREDICTIVE);
    new Service().report(p, HISTORY);
    flood(p, SHORT_FLOOD, 4_096, 1 * MS);

    // Without the cap these reports hold 91% of the pooled weight: the boundaries go to 1,696 s
    // and 1,800 s, every job type of the service to level 0, and the safeguard holds FIFO order.
    flood(p, LONG_FLOOD, 20_000, 30 * 60_000 * MS);

    int[] after = levels(p);
    // The short types stay first and the e-mail behind them; only the export, which carries most
    // of the service's work, may rise one level: the budgeted last boundary follows the work,
    // which is now the 30-minute jobs' (they go last, behind the export).
    assertThat(after[0]).isZero();
    assertThat(after[1]).isZero();
    assertThat(after[2]).isEqualTo(1);
    assertThat(after[3]).isBetween(1, 2);
    assertThat(p.peek(LONG_FLOOD).level()).isEqualTo(2);
    // The service is silent, so the safeguard's recent reports are all the flood's: beyond its
    // limit they do not count, and the decision stays.
    SafeguardStatus safeguard = p.safeguard();
    assertThat(safeguard.holding()).isFalse();
    assertThat(safeguard.reason()).contains("within the producers' share limits");
  }

  @Test
  void observe_30MinuteFloodWhileTheServiceReports_isJudgedWithTheFloodAtItsLimit() {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), new ManualTicker(), Mode.PREDICTIVE);
    Service service = new Service();
    service.report(p, HISTORY);

    // One report of the service for every four of the flood's.
    for (int i = 0; i < 5_000; i++) {
      flood(p, LONG_FLOOD, 4, 30 * 60_000 * MS);
      service.report(p, 1);
    }

    SafeguardStatus safeguard = p.safeguard();
    assertThat(safeguard.holding()).isFalse();
    assertThat(safeguard.estimatedGain()).isGreaterThan(0.3);
    assertThat(safeguard.reason()).contains("counted at the limit");
    assertThat(levels(p)[0]).isZero();
    assertThat(levels(p)[2]).isEqualTo(1);
  }

  @Test
  void boundaries_underBothFloods_stayBetweenTheServicesQuantilesOfTheGuarantee() {
    // Equal quantiles (seed paper equation 2), so that boundary j sits at pooled quantile j / 3.
    HistogramPredictor p =
        new HistogramPredictor(
            PredictorConfig.builder().tailBudget(0).build(), new ManualTicker(), Mode.PREDICTIVE);
    new Service().report(p, HISTORY);
    DurationHistogram own = new DurationHistogram();
    p.pooled().copyTo(own);
    int[] before = levels(p);

    flood(p, SHORT_FLOOD, 4_096, 1 * MS);
    double share = limit(longRunShare(HISTORY, 4_096));
    assertThat(share).isEqualTo(ProducerWeights.NEWCOMER_SHARE);
    assertWithinGuarantee(p.boundaries().orElseThrow(), own, share);
    assertThat(levels(p)).containsExactly(before);

    flood(p, LONG_FLOOD, 20_000, 30 * 60_000 * MS);
    share = limit(longRunShare(HISTORY, 24_096));
    assertThat(share).isCloseTo(0.25, within(0.01));
    assertWithinGuarantee(p.boundaries().orElseThrow(), own, share);
    int[] after = levels(p);
    for (int t = 0; t < TYPES.length; t++) {
      assertThat(Math.abs(after[t] - before[t])).isLessThanOrEqualTo(1);
    }
  }

  /**
   * Boundary j at pooled quantile q = j / L lies between the service's quantiles (q - s) / (1 - s)
   * and q / (1 - s), where s bounds the other producer's share.
   */
  private static void assertWithinGuarantee(Boundaries b, DurationHistogram own, double share) {
    for (int j = 1; j < b.levels(); j++) {
      double q = (double) j / b.levels();
      double low = own.quantile(Math.max(0, (q - share) / (1 - share)));
      double high = own.quantile(Math.min(1, q / (1 - share)));
      assertThat(b.nanos(j - 1))
          .as("boundary %d", j)
          .isBetween(low * (1 - 1e-6), high * (1 + 1e-6));
    }
  }

  @Test
  void observe_fewReportsFromANewProducer_weighNoMoreThanTheirOwn() {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), new ManualTicker(), Mode.PREDICTIVE);
    Service service = new Service();
    service.report(p, HISTORY);
    double[] boundaries = p.boundaries().orElseThrow().toArray();

    // A cap relative to the others alone ("no producer over the rest together") would give these
    // 50 reports half of the weight and the first boundary to 1 ms.
    flood(p, Keys.of("newcomer", "ping"), 50, 1 * MS);
    service.report(p, 512);

    assertThat(p.boundaries().orElseThrow().toArray()).containsExactly(boundaries);
  }

  @Test
  void observe_floodFromAProducerBeyondTheTrackedOnes_isCappedOnceItOutweighsOne() {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), new ManualTicker(), Mode.PREDICTIVE);
    Service service = new Service();
    // Fill the table: the service and as many other producers as can be tracked, each reporting
    // its share, so that none is dropped and the flooding producer starts untracked.
    for (int round = 0; round < HISTORY / 200; round++) {
      service.report(p, 100);
      for (int i = 0; i < ProducerWeights.MAX_TRACKED; i++) {
        p.observe(Keys.of("tenant-" + i, "work"), 37 * MS);
      }
    }
    int[] before = levels(p);

    flood(p, SHORT_FLOOD, 4_096, 1 * MS);
    flood(p, LONG_FLOOD, 20_000, 30 * 60_000 * MS);

    int[] after = levels(p);
    assertThat(after[0]).isZero();
    assertThat(after[1]).isZero();
    for (int t = 0; t < TYPES.length; t++) {
      assertThat(Math.abs(after[t] - before[t])).isLessThanOrEqualTo(1);
    }
    assertThat(p.holdsFifoOrder()).isFalse();
  }

  @Test
  void restore_thenBothFloods_areCappedByTheRestoredHistory(@TempDir Path dir)
      throws IOException, SnapshotException {
    ManualTicker ticker = new ManualTicker();
    HistogramPredictor original =
        new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);
    new Service().report(original, HISTORY);
    Path file = dir.resolve("predictor.snap");
    original.save(file, "test");
    HistogramPredictor p =
        HistogramPredictor.restore(
            file, "test", PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);
    int[] before = levels(p);

    // The snapshot holds no producers; the restored weight is the service's by its keys.
    flood(p, SHORT_FLOOD, 4_096, 1 * MS);
    assertThat(levels(p)).containsExactly(before);
    flood(p, LONG_FLOOD, 20_000, 30 * 60_000 * MS);

    int[] after = levels(p);
    assertThat(after[0]).isZero();
    assertThat(after[1]).isZero();
    assertThat(after[2]).isEqualTo(1);
    assertThat(after[3]).isBetween(1, 2);
    assertThat(p.holdsFifoOrder()).isFalse();
  }

  @Test
  void restore_oneProducer_refreshesItsBoundariesAsTheOriginalDoes(@TempDir Path dir)
      throws IOException, SnapshotException {
    ManualTicker ticker = new ManualTicker();
    PredictorConfig config = PredictorConfig.builder().tailBudget(0).build();
    HistogramPredictor original = new HistogramPredictor(config, ticker, Mode.PREDICTIVE);
    Service service = new Service();
    service.report(original, HISTORY / 4);
    Path file = dir.resolve("predictor.snap");
    original.save(file, "test");
    HistogramPredictor restored =
        HistogramPredictor.restore(file, "test", config, ticker, Mode.PREDICTIVE);

    // The service's traffic changes: the e-mails get ten times slower, then the exports stop.
    for (int round = 0; round < 40; round++) {
      for (int i = 0; i < 256; i++) {
        double nanos = round < 20 ? 370 * MS : 2 * MS * (1 + i % 3);
        original.observe(Keys.of("shop", "send_email"), nanos);
        restored.observe(Keys.of("shop", "send_email"), nanos);
      }
      assertThat(restored.boundaries()).isEqualTo(original.boundaries());
    }
  }

  @Test
  void capFactors_floodBesideAnErodedService_holdsTheFloodAtItsLimit() {
    double[] weights = {0.99, 0.01};
    double[] longRun = {0.1, 0.9};
    double[] limits = {0.2, 1.8};
    double[] factors = new double[2];

    assertThat(ProducerWeights.capFactors(weights, longRun, limits, factors, new byte[2])).isTrue();

    double flood = weights[0] * factors[0];
    double service = weights[1] * factors[1];
    assertThat(flood / (flood + service)).isCloseTo(0.2, within(1e-12));
  }

  @Test
  void capFactors_incumbentBesideAFewReports_capsNothing() {
    double[] factors = new double[2];

    assertThat(
            ProducerWeights.capFactors(
                new double[] {0.999, 0.001},
                new double[] {0.999, 0.001},
                new double[] {1.998, 0.125},
                factors,
                new byte[2]))
        .isFalse();
    assertThat(factors).containsExactly(1, 1);
  }

  @Test
  void capFactors_newProducersBesideEachOther_raiseNobodyBeyondTheirOwn() {
    // Two producers new beside each other (the long-run weight is still an absent one's) are both
    // over their limit; a producer with a few reports cannot take what they lose, so they keep it.
    double[] weights = {0.5, 0.5, 0.0001, 0};
    double[] longRun = {0.05, 0.05, 0, 0.9};
    double[] limits = {0.125, 0.125, 0.125, 1.8};
    double[] factors = new double[4];

    ProducerWeights.capFactors(weights, longRun, limits, factors, new byte[4]);

    double total = 0;
    for (int e = 0; e < 4; e++) {
      total += weights[e] * factors[e];
    }
    assertThat(weights[2] * factors[2] / total).isCloseTo(0.0001 / 1.0001, within(1e-9));
    assertThat(weights[0] * factors[0] / total).isCloseTo(0.5 / 1.0001, within(1e-9));
  }

  @Test
  void capFactors_oneProducer_capsNothing() {
    double[] factors = new double[3];

    assertThat(
            ProducerWeights.capFactors(
                new double[] {5, 0, 0},
                new double[] {1, 0, 0},
                new double[] {0.125, 0.125, 0.125},
                factors,
                new byte[3]))
        .isFalse();
  }
}
