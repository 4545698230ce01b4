/**
 * The predictability check behind {@code ./harbinger check HISTORY}: would per-key duration
 * predictions help scheduling on this workload?
 *
 * <p>Public API: {@link io.harbinger.experiments.check.PredictabilityCheck} (the computation),
 * {@link io.harbinger.experiments.check.CheckResult} (its result, with the {@link
 * io.harbinger.experiments.check.Advice}), {@link io.harbinger.experiments.sim.WhatIf} (the
 * simulated what-if, implemented by {@code io.harbinger.experiments.sim.SimulatedWhatIf}) and
 * {@link io.harbinger.experiments.check.CheckCommand} (the command line). Everything else is
 * package-private.
 */
package io.harbinger.experiments.check;
