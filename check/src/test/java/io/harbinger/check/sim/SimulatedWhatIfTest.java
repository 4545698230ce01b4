package io.harbinger.check.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.harbinger.check.trace.Trace;
import io.harbinger.check.trace.TraceFormat;
import org.junit.jupiter.api.Test;

class SimulatedWhatIfTest {

  @Test
  void simulate_trace_givesPredictiveAndWeightedCellsAtOwnLoadAnd08() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=8,jobs=20000,keys=30,load=0.6");

    WhatIf.Result r = new SimulatedWhatIf(64).simulate(trace, 10_000);

    assertThat(r.ran()).isTrue();
    assertThat(r.cells())
        .extracting(WhatIf.Cell::arm)
        .containsExactly(
            "predictive_warm",
            "predictive_warm+weights+pausing",
            "predictive_warm+weights+pausing@few_observations",
            "predictive_warm",
            "predictive_warm+weights+pausing",
            "predictive_warm+weights+pausing@few_observations");
    assertThat(r.cells().get(0).load()).isBetween(0.5, 0.7);
    assertThat(r.cells().get(3).load()).isEqualTo(0.8);
    assertThat(r.note()).contains("simulated 10,000 held-out jobs on 64 workers");
    assertThat(new SimulatedWhatIf(64).simulate(trace, 10_000)).isEqualTo(r);
  }

  @Test
  void simulate_heldOutWithoutSpan_saysWhyNothingRan() throws Exception {
    Trace trace = TraceFormat.read("synthetic:seed=8,jobs=100,keys=3");

    WhatIf.Result r = new SimulatedWhatIf(64).simulate(trace, 99);

    assertThat(r.ran()).isFalse();
    assertThat(r.note()).startsWith("not run: the held-out part needs at least 2 jobs");
    assertThatThrownBy(() -> new SimulatedWhatIf(0))
        .hasMessage("workers must be in [1, 100000]: 0");
  }
}
