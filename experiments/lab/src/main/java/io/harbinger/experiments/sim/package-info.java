/**
 * The discrete-event simulator and trace replay behind {@code ./harbinger simulate}: non-preemptive
 * workers fed by the broker's scheduling core ({@code io.harbinger.scheduler}) and Harbinger's
 * predictor, both on simulated time.
 *
 * <p>Public API: {@link io.harbinger.check.sim.SimInput} (a trace split into history and
 * evaluation, compressed to a load), {@link io.harbinger.check.sim.Simulator} (one run of a
 * simulator arm of the registry, {@code io.harbinger.broker.Arms#simulated}) giving a {@link
 * io.harbinger.check.sim.SimRun}, {@link io.harbinger.experiments.sim.WindowStats} (metrics per
 * window), {@link io.harbinger.experiments.sim.Simulations} (runs the arms of one load into an
 * immutable {@link io.harbinger.experiments.sim.SimulationReport}: arms, windows and gates A and
 * B), {@link io.harbinger.experiments.sim.SimulationFormat} (its Markdown and JSON reporters),
 * {@link io.harbinger.check.sim.WhatIf} (what a simulation says of a history), {@link
 * io.harbinger.experiments.sim.SimulateCommand} (the command line), {@link
 * io.harbinger.check.sim.SimulatedWhatIf} (the check's what-if) and {@link
 * io.harbinger.experiments.sim.SpeedMain} (the speed measurement).
 *
 * <p>Assumptions and guarantees: a run is single-threaded and a pure function of its input, arm and
 * seed, so reports are byte-identical when repeated. Nothing here reads the system clock except
 * {@link io.harbinger.experiments.sim.SpeedMain}.
 */
package io.harbinger.experiments.sim;
