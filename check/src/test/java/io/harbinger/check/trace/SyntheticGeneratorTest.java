package io.harbinger.check.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyntheticGeneratorTest {

  @Test
  void read_sameSeed_givesIdenticalJobs() throws TraceException {
    Trace a = TraceFormat.read("synthetic:seed=42,jobs=5000,keys=30,distribution=pareto");
    Trace b = TraceFormat.read("synthetic:seed=42,jobs=5000,keys=30,distribution=pareto");

    assertThat(a.size()).isEqualTo(5000);
    for (int i = 0; i < a.size(); i++) {
      assertThat(a.arrivalNanos(i)).isEqualTo(b.arrivalNanos(i));
      assertThat(a.durationNanos(i)).isEqualTo(b.durationNanos(i));
      assertThat(a.key(i)).isEqualTo(b.key(i));
    }
  }

  @Test
  void read_otherSeed_givesOtherJobs() throws TraceException {
    Trace a = TraceFormat.read("synthetic:seed=1,jobs=100");
    Trace b = TraceFormat.read("synthetic:seed=2,jobs=100");

    int same = 0;
    for (int i = 0; i < 100; i++) {
      same += a.durationNanos(i) == b.durationNanos(i) ? 1 : 0;
    }
    assertThat(same).isLessThan(5);
  }

  @Test
  void read_lognormal_perKeyMediansAreLogUniformInRangeAndSpreadMatchesSigma()
      throws TraceException {
    Trace t =
        TraceFormat.read(
            "synthetic:seed=3,jobs=200000,keys=10,zipf=0,sigma=0.5,minmedian=0.01,maxmedian=1");

    Map<String, List<Double>> byKey = byKey(t);
    assertThat(byKey).hasSize(10);
    for (List<Double> d : byKey.values()) {
      double[] v = sorted(d);
      double median = v[v.length / 2];
      assertThat(median).isBetween(0.0095, 1.05);
      double p84 = v[(int) (0.8413 * v.length)];
      assertThat(Math.log(p84 / median)).isCloseTo(0.5, within(0.03));
      assertThat(d.size()).isCloseTo(20_000, within(1_000));
    }
  }

  @Test
  void read_bimodal_tenPercentOfJobsAreAHundredTimesSlower() throws TraceException {
    Trace t =
        TraceFormat.read("synthetic:seed=4,jobs=100000,keys=5,distribution=bimodal,sigma=0.1");

    Map<String, List<Double>> byKey = byKey(t);
    for (List<Double> d : byKey.values()) {
      double[] v = sorted(d);
      double median = v[v.length / 2];
      long slow = d.stream().filter(x -> x > 10 * median).count();
      assertThat((double) slow / d.size()).isCloseTo(0.1, within(0.01));
    }
  }

  @Test
  void read_decoy_evenKeysLookShortButCarryMoreWorkThanOddKeys() throws TraceException {
    Trace t =
        TraceFormat.read(
            "synthetic:seed=6,jobs=100000,keys=2,zipf=0,distribution=decoy,minmedian=1,maxmedian=1,"
                + "slowshare=0.3,slowratio=12,sigma=0.2");

    double[] decoy = sorted(byKey(t).get("k0"));
    double[] honest = sorted(byKey(t).get("k1"));
    double decoyMean = java.util.Arrays.stream(decoy).average().orElseThrow();
    double honestMean = java.util.Arrays.stream(honest).average().orElseThrow();
    assertThat(decoy[decoy.length / 2]).isLessThan(honest[honest.length / 2] / 2);
    assertThat(decoyMean).isGreaterThan(1.5 * honestMean);
  }

  @Test
  void read_pareto_medianIsTheKeyMedianAndTailIsCapped() throws TraceException {
    Trace t =
        TraceFormat.read(
            "synthetic:seed=5,jobs=100000,keys=1,distribution=pareto,minmedian=1,maxmedian=1,cap=50");

    double[] v = sorted(byKey(t).get("k0"));
    assertThat(v[v.length / 2]).isCloseTo(1.0, within(0.03));
    assertThat(v[v.length - 1]).isLessThanOrEqualTo(50.0 + 1e-6);
    assertThat(v[0]).isGreaterThanOrEqualTo(1 / Math.pow(2, 1 / 1.4) - 1e-6);
  }

  @Test
  void read_load_realisedOfferedLoadIsCloseToTarget() throws TraceException {
    Trace t = TraceFormat.read("synthetic:seed=6,jobs=50000,keys=20,load=0.5,workers=8");

    double work = 0;
    for (int i = 0; i < t.size(); i++) {
      work += t.durationNanos(i);
    }
    double span = t.arrivalNanos(t.size() - 1) - t.arrivalNanos(0);
    assertThat(work / (8 * span)).isCloseTo(0.5, within(0.02));
  }

  @Test
  void read_zipf_firstKeyIsTheMostPopular() throws TraceException {
    Trace t = TraceFormat.read("synthetic:seed=8,jobs=20000,keys=10,zipf=1");

    Map<String, List<Double>> byKey = byKey(t);
    assertThat(byKey.get("k0").size()).isGreaterThan(2 * byKey.get("k9").size());
  }

  @Test
  void read_shift_multipliesLateDurationsOfChosenKeys() throws TraceException {
    String base = "synthetic:seed=9,jobs=40000,keys=10,zipf=0,sigma=0.1";
    Trace plain = TraceFormat.read(base);
    Trace shifted = TraceFormat.read(base + ",shift=8,shiftat=0.5,shiftkeys=0.3");

    int changedKeys = 0;
    for (String key : byKey(plain).keySet()) {
      double before = medianOf(shifted, key, 0, 20_000);
      double after = medianOf(shifted, key, 20_000, 40_000);
      if (after / before > 4) {
        changedKeys++;
        assertThat(after / before).isCloseTo(8, within(1.0));
      } else {
        assertThat(after / before).isCloseTo(1, within(0.1));
      }
    }
    assertThat(changedKeys).isEqualTo(3);
    assertThat(shifted.report().notes())
        .anyMatch(n -> n.contains("cost shift x8.0 from job 20000"));
  }

  @Test
  void read_badOptions_failWithTheRule() {
    assertThatThrownBy(() -> TraceFormat.read("synthetic:jobs=0"))
        .isInstanceOf(TraceException.class)
        .hasMessage("option jobs must be in [1, 100000000]: 0 in synthetic:jobs=0");
    assertThatThrownBy(() -> TraceFormat.read("synthetic:distribution=uniform"))
        .hasMessageContaining(
            "option distribution must be one of bimodal, decoy, lognormal, pareto");
    assertThatThrownBy(() -> TraceFormat.read("synthetic:load=fast"))
        .hasMessage("option load must be a number: fast in synthetic:load=fast");
  }

  private static double medianOf(Trace t, String key, int from, int to) {
    List<Double> d = new ArrayList<>();
    for (int i = 0; i < t.size(); i++) {
      // jobs are generated in index order, and arrivals are increasing, so index = job number
      if (i >= from && i < to && t.key(i).equals(key)) {
        d.add(t.durationNanos(i) / 1e9);
      }
    }
    double[] v = sorted(d);
    return v[v.length / 2];
  }

  private static Map<String, List<Double>> byKey(Trace t) {
    Map<String, List<Double>> m = new HashMap<>();
    for (int i = 0; i < t.size(); i++) {
      m.computeIfAbsent(t.key(i), k -> new ArrayList<>()).add(t.durationNanos(i) / 1e9);
    }
    return m;
  }

  private static double[] sorted(List<Double> d) {
    double[] v = d.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    return v;
  }
}
