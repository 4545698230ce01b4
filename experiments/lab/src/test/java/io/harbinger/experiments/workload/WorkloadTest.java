package io.harbinger.experiments.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WorkloadTest {

  /**
   * Expected counts at rate scale 1.8 over 300 s, as the original implementation's production-flow
   * benchmark lists them.
   */
  private static final Map<JobType, Integer> REFERENCE_COUNTS = new EnumMap<>(JobType.class);

  static {
    REFERENCE_COUNTS.put(JobType.SEND_ORDER_EMAIL, 5054);
    REFERENCE_COUNTS.put(JobType.GENERATE_INVOICE, 5054);
    REFERENCE_COUNTS.put(JobType.RESERVE_INVENTORY, 6739);
    REFERENCE_COUNTS.put(JobType.RESIZE_IMAGE, 2246);
    REFERENCE_COUNTS.put(JobType.REINDEX_PRODUCT, 3240);
    REFERENCE_COUNTS.put(JobType.PUSH_NOTIFICATION, 7614);
    REFERENCE_COUNTS.put(JobType.SEND_SMS, 1523);
    REFERENCE_COUNTS.put(JobType.DELIVER_WEBHOOK, 3483);
    REFERENCE_COUNTS.put(JobType.EXPORT_REPORT, 54);
  }

  private static Workload seed11;

  @BeforeAll
  static void generate() {
    seed11 = Workload.generate(WorkloadConfig.reference(11), KernelCalibration.REFERENCE);
  }

  @Test
  void generate_sameSeed_identicalTrace() {
    Workload again = Workload.generate(WorkloadConfig.reference(11), KernelCalibration.REFERENCE);

    assertThat(again.jobs()).isEqualTo(seed11.jobs());
  }

  @Test
  void generate_otherSeed_otherTrace() {
    Workload other = Workload.generate(WorkloadConfig.reference(22), KernelCalibration.REFERENCE);

    assertThat(other.jobs().size()).isNotEqualTo(seed11.jobs().size());
    assertThat(other.jobs().get(0)).isNotEqualTo(seed11.jobs().get(0));
  }

  @Test
  void expectedCount_referenceRates_matchReferenceTable() {
    WorkloadConfig config = WorkloadConfig.reference(11);

    for (JobType t : JobType.values()) {
      assertThat(config.expectedCount(t))
          .as(t.wireName())
          .isCloseTo(REFERENCE_COUNTS.get(t), within(1.0));
    }
    double total = 0;
    for (JobType t : JobType.values()) {
      total += config.expectedCount(t);
    }
    assertThat(total).isCloseTo(35_008, within(1.0));
  }

  @Test
  void generate_fiveSeeds_countsPerTypeWithinPoissonNoiseOfReference() {
    for (long seed : List.of(11L, 22L, 33L, 44L, 55L)) {
      Map<JobType, Integer> counts =
          Workload.generate(WorkloadConfig.reference(seed), KernelCalibration.REFERENCE)
              .countsByType();
      for (JobType t : JobType.values()) {
        int expected = REFERENCE_COUNTS.get(t);
        assertThat((double) counts.get(t))
            .as("seed %d %s", seed, t.wireName())
            .isCloseTo(expected, within(4 * Math.sqrt(expected)));
      }
    }
  }

  @Test
  void generate_phaseRates_followMultipliers() {
    Map<Phase, Integer> checkout = new EnumMap<>(Phase.class);
    Map<Phase, Integer> reindex = new EnumMap<>(Phase.class);
    for (Job j : seed11.jobs()) {
      if (j.service() == Service.CHECKOUT) {
        checkout.merge(j.phase(), 1, Integer::sum);
      } else if (j.type() == JobType.REINDEX_PRODUCT) {
        reindex.merge(j.phase(), 1, Integer::sum);
      }
    }
    // Per second: steady 60 s, flash 60 s. Checkout triples in the flash sale, reindex is flat.
    double checkoutRatio = checkout.get(Phase.FLASH_SALE) / (double) checkout.get(Phase.STEADY);
    double reindexRatio = reindex.get(Phase.FLASH_SALE) / (double) reindex.get(Phase.STEADY);

    assertThat(checkoutRatio).isCloseTo(3.0, within(0.3));
    assertThat(reindexRatio).isCloseTo(1.0, within(0.2));
  }

  @Test
  void multiplier_referenceTable() {
    assertThat(JobType.SEND_ORDER_EMAIL.multiplier(Phase.FLASH_SALE)).isEqualTo(3.0);
    assertThat(JobType.SEND_ORDER_EMAIL.multiplier(Phase.RAMP)).isEqualTo(1.8);
    assertThat(JobType.PUSH_NOTIFICATION.multiplier(Phase.FLASH_SALE)).isEqualTo(2.5);
    assertThat(JobType.DELIVER_WEBHOOK.multiplier(Phase.RECOVERY)).isEqualTo(1.2);
    assertThat(JobType.RESIZE_IMAGE.multiplier(Phase.FLASH_SALE)).isEqualTo(1.2);
    assertThat(JobType.EXPORT_REPORT.multiplier(Phase.FLASH_SALE)).isEqualTo(1.0);
    assertThat(JobType.SEND_ORDER_EMAIL.maxRatePerSecond(1.8)).isCloseTo(32.4, within(1e-9));
  }

  @Test
  void phaseAt_boundaries() {
    assertThat(Phase.at(0)).isEqualTo(Phase.STEADY);
    assertThat(Phase.at(0.1999)).isEqualTo(Phase.STEADY);
    assertThat(Phase.at(0.2)).isEqualTo(Phase.RAMP);
    assertThat(Phase.at(0.3)).isEqualTo(Phase.FLASH_SALE);
    assertThat(Phase.at(0.5)).isEqualTo(Phase.RECOVERY);
    assertThat(Phase.at(0.7)).isEqualTo(Phase.SHIFTED);
    assertThat(Phase.at(1.0)).isEqualTo(Phase.SHIFTED);
    assertThatThrownBy(() -> Phase.at(1.5)).hasMessage("fraction must be in [0, 1]: 1.5");
  }

  @Test
  void generate_jobsSortedNumberedAndInTheirPhase() {
    long window = seed11.arrivalWindowNanos();
    Job previous = null;
    for (Job j : seed11.jobs()) {
      if (previous != null) {
        assertThat(j.seq()).isEqualTo(previous.seq() + 1);
        assertThat(j.arrivalNanos()).isGreaterThanOrEqualTo(previous.arrivalNanos());
      }
      assertThat(j.arrivalNanos()).isLessThan(window);
      double fraction = j.arrivalNanos() / (double) window;
      assertThat(fraction)
          .isBetween(j.phase().startFraction() - 1e-9, j.phase().endFraction() + 1e-9);
      previous = j;
    }
  }

  @Test
  void generate_shiftedPhase_moreHiResImagesAndSlowWebhooks() {
    double[] hiRes = share(JobType.RESIZE_IMAGE, j -> j.units() > 4_000_000);
    double[] slow = share(JobType.DELIVER_WEBHOOK, j -> j.sleepMillis() > 150);

    assertThat(hiRes[0]).isCloseTo(0.08, within(0.03));
    assertThat(hiRes[1]).isCloseTo(0.55, within(0.05));
    assertThat(slow[0]).isCloseTo(0.12, within(0.03));
    assertThat(slow[1]).isCloseTo(0.35, within(0.05));
  }

  private static double[] share(JobType type, java.util.function.Predicate<Job> test) {
    int[] total = new int[2];
    int[] hits = new int[2];
    for (Job j : seed11.jobs()) {
      if (j.type() != type) {
        continue;
      }
      int i = j.phase() == Phase.SHIFTED ? 1 : 0;
      total[i]++;
      if (test.test(j)) {
        hits[i]++;
      }
    }
    return new double[] {hits[0] / (double) total[0], hits[1] / (double) total[1]};
  }

  @Test
  void generate_failingWebhooks_aboutTwoPercentWithTimeout() {
    long webhooks = seed11.jobs().stream().filter(j -> j.type() == JobType.DELIVER_WEBHOOK).count();
    List<Job> failing = seed11.jobs().stream().filter(Job::failsFirstAttempt).toList();

    assertThat(failing).allSatisfy(j -> assertThat(j.type()).isEqualTo(JobType.DELIVER_WEBHOOK));
    assertThat(failing.size() / (double) webhooks).isCloseTo(0.02, within(0.008));
    assertThat(failing)
        .allSatisfy(
            j -> assertThat(j.plannedMillis()).isCloseTo(1500 + j.sleepMillis(), within(1e-9)));
  }

  @Test
  void generate_unitsWithinCostModelRanges() {
    for (Job j : seed11.jobs()) {
      switch (j.type()) {
        case SEND_ORDER_EMAIL -> assertThat(j.units()).isEqualTo(24);
        case GENERATE_INVOICE -> assertThat(j.units()).isBetween(1L, 400L);
        case REINDEX_PRODUCT -> assertThat(j.units()).isBetween(3000L, 5999L);
        case EXPORT_REPORT -> assertThat(j.units()).isBetween(40L, 119L);
        case RESIZE_IMAGE -> assertThat(j.units()).isPositive();
        default -> assertThat(j.units()).isZero();
      }
      assertThat(j.sizeHint()).isEqualTo(j.type().sizeHinted() ? j.units() : 0);
    }
  }

  @Test
  void generate_oracleTiers_areTertilesOfPlannedCost() {
    int[] perTier = new int[3];
    double[] maxPlanned = new double[3];
    double[] minPlanned = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    for (Job j : seed11.jobs()) {
      perTier[j.oracleTier()]++;
      maxPlanned[j.oracleTier()] = Math.max(maxPlanned[j.oracleTier()], j.plannedMillis());
      minPlanned[j.oracleTier()] = Math.min(minPlanned[j.oracleTier()], j.plannedMillis());
    }
    int n = seed11.jobs().size();

    for (int tier = 0; tier < 3; tier++) {
      assertThat(perTier[tier] / (double) n).isCloseTo(1 / 3.0, within(0.01));
    }
    assertThat(maxPlanned[0]).isLessThan(minPlanned[1]);
    assertThat(maxPlanned[1]).isLessThan(minPlanned[2]);
    assertThat(seed11.jobs().stream().filter(j -> j.type() == JobType.EXPORT_REPORT))
        .allSatisfy(j -> assertThat(j.oracleTier()).isEqualTo(2));
  }

  @Test
  void generate_timeScale_compressesArrivalsSleepsAndUnitsKeepsJobs() {
    Workload fast =
        Workload.generate(
            WorkloadConfig.reference(11).withTimeScale(10), KernelCalibration.REFERENCE);

    assertThat(fast.jobs()).hasSameSizeAs(seed11.jobs());
    assertThat(fast.arrivalWindowNanos()).isEqualTo(30_000_000_000L);
    for (int i = 0; i < 200; i++) {
      Job slow = seed11.jobs().get(i);
      Job quick = fast.jobs().get(i);
      assertThat(quick.type()).isEqualTo(slow.type());
      assertThat((double) quick.arrivalNanos()).isCloseTo(slow.arrivalNanos() / 10.0, within(1.0));
      assertThat(quick.sleepMillis()).isCloseTo(slow.sleepMillis() / 10, within(1e-9));
      if (slow.type().kernel() != Kernel.NONE) {
        assertThat(quick.units()).isEqualTo(Math.max(1, Math.round(slow.units() / 10.0)));
      }
    }
  }

  @Test
  void plannedMillis_isCalibratedCpuPlusSleeps() {
    KernelCalibration doubled = new KernelCalibration(0.011, 0.093, 19, 1.8e-4, 45);
    Workload slower = Workload.generate(WorkloadConfig.reference(11), doubled);

    for (int i = 0; i < 500; i++) {
      Job a = seed11.jobs().get(i);
      Job b = slower.jobs().get(i);
      assertThat(b.arrivalNanos()).isEqualTo(a.arrivalNanos());
      assertThat(b.cpuMillis()).isCloseTo(2 * a.cpuMillis(), within(1e-9));
      assertThat(a.plannedMillis())
          .isCloseTo(a.cpuMillis() + a.sleepMillis() + a.failedAttemptMillis(), within(1e-9));
    }
    Job image =
        seed11.jobs().stream()
            .filter(j -> j.type() == JobType.RESIZE_IMAGE)
            .findFirst()
            .orElseThrow();
    assertThat(image.cpuMillis()).isCloseTo(9.5 * image.units() / 1e6, within(1e-9));
  }

  @Test
  void config_outOfRange_failsWithRule() {
    assertThatThrownBy(() -> new WorkloadConfig(1, 0.5, 1.8, 1))
        .hasMessage("arrivalSeconds must be in [1, 86400]: 0.5");
    assertThatThrownBy(() -> new WorkloadConfig(1, 300, 0, 1))
        .hasMessage("rateScale must be in (0, 100]: 0.0");
    assertThatThrownBy(() -> new WorkloadConfig(1, 300, 1.8, 0.5))
        .hasMessage("timeScale must be in [1, 1000]: 0.5");
    assertThatThrownBy(() -> JobType.fromWireName("mine_bitcoin"))
        .hasMessage("unknown job type: mine_bitcoin");
  }

  @Test
  void staticMaps_referenceTiers() {
    assertThat(StaticMap.HAND_TUNED.level(JobType.REINDEX_PRODUCT)).isZero();
    assertThat(StaticMap.HAND_TUNED.level(JobType.SEND_SMS)).isEqualTo(1);
    assertThat(StaticMap.HAND_TUNED.level(JobType.EXPORT_REPORT)).isEqualTo(2);
    int[] tunedPerLevel = new int[3];
    for (JobType t : JobType.values()) {
      tunedPerLevel[StaticMap.HAND_TUNED.level(t)]++;
    }
    assertThat(tunedPerLevel).containsExactly(3, 4, 2);
  }

  @Test
  void payload_validJsonDerivedFromJob() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    for (JobType t : JobType.values()) {
      Job job = seed11.jobs().stream().filter(j -> j.type() == t).findFirst().orElseThrow();

      var node = json.readTree(job.payloadJson());

      assertThat(node.get("seq").asLong()).isEqualTo(job.seq());
      assertThat(node.get("job_type").asText()).isEqualTo(t.wireName());
      assertThat(node.size()).isEqualTo(4);
    }
  }

  @Test
  void generate_succeedingWebhooks_changeOnlyTheSlowWebhooks() {
    Workload succeeding =
        Workload.generate(
            WorkloadConfig.reference(11).withWebhooks(Webhooks.SUCCEEDING),
            KernelCalibration.REFERENCE);
    assertThat(succeeding.jobs()).hasSameSizeAs(seed11.jobs());
    int slow = 0;
    for (int i = 0; i < seed11.jobs().size(); i++) {
      Job failing = seed11.jobs().get(i);
      Job other = succeeding.jobs().get(i);
      assertThat(other.arrivalNanos()).isEqualTo(failing.arrivalNanos());
      assertThat(other.type()).isEqualTo(failing.type());
      if (failing.failsFirstAttempt()) {
        slow++;
        assertThat(other.failsFirstAttempt()).isFalse();
        assertThat(other.sleepMillis()).isEqualTo(JobType.WEBHOOK_TIMEOUT_MILLIS);
        assertThat(other.plannedMillis()).isEqualTo(JobType.WEBHOOK_TIMEOUT_MILLIS);
      } else {
        assertThat(other).isEqualTo(failing);
      }
    }
    // About 2% of the ~3,500 webhooks.
    assertThat(slow).isBetween(40, 110);
    assertThat(Webhooks.fromWireName("succeeding")).isEqualTo(Webhooks.SUCCEEDING);
    assertThatThrownBy(() -> Webhooks.fromWireName("flaky"))
        .hasMessage("webhooks must be failing or succeeding: flaky");
  }

  @Test
  void generate_inversion_turnsInvoicesLongAndEmailsShortInTheShiftedPhaseOnly() {
    Workload inverted =
        Workload.generate(
            WorkloadConfig.reference(11).withRegime(Regime.INVERSION), KernelCalibration.REFERENCE);
    assertThat(inverted.jobs()).hasSameSizeAs(seed11.jobs());
    double[] work = new double[2];
    double[][] shiftedSleep = new double[2][2];
    for (int i = 0; i < seed11.jobs().size(); i++) {
      Job reference = seed11.jobs().get(i);
      Job other = inverted.jobs().get(i);
      assertThat(other.arrivalNanos()).isEqualTo(reference.arrivalNanos());
      assertThat(other.type()).isEqualTo(reference.type());
      assertThat(other.phase()).isEqualTo(reference.phase());
      assertThat(other.units()).isEqualTo(reference.units());
      assertThat(other.cpuMillis()).isEqualTo(reference.cpuMillis());
      work[0] += reference.plannedMillis();
      work[1] += other.plannedMillis();
      boolean swapped =
          reference.phase() == Phase.SHIFTED
              && (reference.type() == JobType.GENERATE_INVOICE
                  || reference.type() == JobType.SEND_ORDER_EMAIL);
      if (!swapped) {
        assertThat(other.sleepMillis()).isEqualTo(reference.sleepMillis());
      } else {
        int t = reference.type() == JobType.GENERATE_INVOICE ? 0 : 1;
        shiftedSleep[t][0] += reference.sleepMillis();
        shiftedSleep[t][1] += other.sleepMillis();
        // The same random draw, its median scaled.
        assertThat(other.sleepMillis() / reference.sleepMillis())
            .isCloseTo(t == 0 ? 10 : 0.1, within(1e-9));
      }
    }
    // Invoices now wait longer than emails did before the shift, and emails less than invoices.
    assertThat(shiftedSleep[0][1]).isGreaterThan(shiftedSleep[1][1] * 5);
    assertThat(shiftedSleep[0][1]).isGreaterThan(shiftedSleep[1][0]);
    // The offered work stays within 2% of the reference's.
    assertThat(work[1] / work[0]).isCloseTo(1.0, within(0.02));
    assertThat(Regime.fromWireName("inversion")).isEqualTo(Regime.INVERSION);
    assertThatThrownBy(() -> Regime.fromWireName("flip"))
        .hasMessage("regime must be shift or inversion: flip");
  }
}
