/**
 * The discrete-event simulator's core: non-preemptive workers fed by the scheduling core, with the
 * predictor driven by simulated time (seed paper section 5.6, with the original implementation's
 * simulator rules).
 *
 * <p>Public API: {@link io.harbinger.check.sim.Simulator} runs a {@link
 * io.harbinger.check.sim.SimInput} (a trace split into history and evaluated jobs, at a load) with
 * a {@link io.harbinger.check.sim.SimulatedArm} and gives a {@link io.harbinger.check.sim.SimRun};
 * {@link io.harbinger.check.sim.WhatIf} is the check's simulated what-if. The lab's simulate verb,
 * reports and replays build on these.
 */
package io.harbinger.check.sim;
