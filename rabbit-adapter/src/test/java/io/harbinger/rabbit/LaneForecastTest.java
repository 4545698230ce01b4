package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LaneForecastTest {

  private static final long MS = 1_000_000L;

  @Test
  void aLaneWhoseFreedCreditBringsDeliveries_isWaitedFor() {
    LaneForecast f = new LaneForecast(3, 20 * MS);
    long t = 0;
    for (int i = 0; i < 100; i++) {
      f.creditFreed(0, t);
      f.delivered(0, t + 2 * MS);
      t += 10 * MS;
    }
    assertThat(f.share(0)).isEqualTo(1.0);
    assertThat(f.worthWaiting(0, t)).isTrue();
  }

  @Test
  void elevenMissesInARow_stopTheWaits_andHitsBringThemBack() {
    LaneForecast f = new LaneForecast(3, 20 * MS);
    long t = 0;
    for (int i = 0; i < 10; i++) {
      f.creditFreed(0, t);
      t += 30 * MS;
    }
    // Ten misses (the tenth closed by this check): 1 - (15/16)^10 lost, still above one half.
    assertThat(f.worthWaiting(0, t)).isTrue();
    f.creditFreed(0, t);
    t += 30 * MS;
    assertThat(f.worthWaiting(0, t)).isFalse();
    assertThat(f.share(0)).isLessThan(0.5);
    // The other lanes are untouched.
    assertThat(f.worthWaiting(1, t)).isTrue();
    // A backlog returns: probes are still taken, and hits lift the share again.
    for (int i = 0; i < 3; i++) {
      f.creditFreed(0, t);
      f.delivered(0, t + MS);
      t += 10 * MS;
    }
    assertThat(f.worthWaiting(0, t)).isTrue();
  }

  @Test
  void aDeliveryAfterTheAnticipation_isAMiss_andOnlyTheFirstOpenProbeCounts() {
    LaneForecast f = new LaneForecast(2, 20 * MS);
    f.creditFreed(1, 0);
    // A second freed credit while the probe is open does not open another.
    f.creditFreed(1, 5 * MS);
    f.delivered(1, 25 * MS);
    assertThat(f.share(1)).isEqualTo(1 - LaneForecast.WEIGHT);
    // A delivery with no open probe changes nothing.
    f.delivered(1, 30 * MS);
    assertThat(f.share(1)).isEqualTo(1 - LaneForecast.WEIGHT);
    f.creditFreed(1, 40 * MS);
    f.reset();
    assertThat(f.worthWaiting(1, 100 * MS)).isTrue();
    assertThat(f.share(1)).isEqualTo(1 - LaneForecast.WEIGHT);
  }
}
