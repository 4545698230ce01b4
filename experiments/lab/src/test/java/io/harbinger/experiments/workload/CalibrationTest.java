package io.harbinger.experiments.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CalibrationTest {

  @Test
  void compute_referenceKernels_steadyAtTargetAndFlashAboutReference() {
    Calibration c = Calibration.compute(KernelCalibration.REFERENCE, 4, 4, 0.60);

    assertThat(c.utilisation().get(Phase.STEADY)).isCloseTo(0.60, within(1e-9));
    // The reference machine ran FIFO at about 60% with rate scale 1.8 and saw about 125% in the
    // flash sale; planned costs alone give a rate scale in the same range.
    assertThat(c.rateScale()).isBetween(1.5, 2.0);
    assertThat(c.utilisation().get(Phase.FLASH_SALE)).isBetween(1.15, 1.40);
    assertThat(c.utilisation().get(Phase.RAMP))
        .isBetween(c.utilisation().get(Phase.STEADY), c.utilisation().get(Phase.FLASH_SALE));
  }

  @Test
  void compute_slowerKernels_lowerRateScaleSameSteadyUtilisation() {
    KernelCalibration r = KernelCalibration.REFERENCE;
    KernelCalibration slow =
        new KernelCalibration(
            r.renderMsPerKib() * 3,
            r.invoiceMsPerItem() * 3,
            r.resizeMsPerMegapixel() * 3,
            r.reindexMsPerWord() * 3,
            r.exportMsPerChunk() * 3);

    Calibration fast = Calibration.compute(r, 4, 2, 0.6);
    Calibration slower = Calibration.compute(slow, 4, 2, 0.6);

    assertThat(slower.rateScale()).isLessThan(fast.rateScale());
    assertThat(slower.cpuShare().get(Phase.STEADY))
        .isGreaterThan(fast.cpuShare().get(Phase.STEADY));
    assertThat(slower.utilisation().get(Phase.STEADY)).isCloseTo(0.6, within(1e-9));
  }

  @Test
  void compute_utilisationMatchesGeneratedWorkload() {
    Calibration c = Calibration.compute(KernelCalibration.REFERENCE, 4, 2, 0.6);
    Workload w =
        Workload.generate(
            WorkloadConfig.reference(33).withRateScale(c.rateScale()), KernelCalibration.REFERENCE);

    double steadyPlannedMs =
        w.jobs().stream()
            .filter(j -> j.phase() == Phase.STEADY)
            .mapToDouble(Job::plannedMillis)
            .sum();
    double steadySeconds = 300 * (Phase.STEADY.endFraction() - Phase.STEADY.startFraction());

    assertThat(steadyPlannedMs / (steadySeconds * 1000 * 4)).isCloseTo(0.6, within(0.06));
  }

  @Test
  void compute_badParameters_failWithRule() {
    assertThatThrownBy(() -> Calibration.compute(KernelCalibration.REFERENCE, 0, 2, 0.6))
        .hasMessage("workers and cores must be at least 1: 0, 2");
    assertThatThrownBy(() -> Calibration.compute(KernelCalibration.REFERENCE, 4, 2, 3))
        .hasMessage("steadyTarget must be in (0, 2]: 3.0");
    assertThatThrownBy(() -> new KernelCalibration(0, 1, 1, 1, 1))
        .hasMessageStartingWith("kernel costs must be positive and finite");
  }
}
