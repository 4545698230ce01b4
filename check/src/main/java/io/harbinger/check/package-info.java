/**
 * The predictability check behind {@code ./harbinger check HISTORY}: would per-key duration
 * predictions help scheduling on this workload?
 *
 * <p>Public API: {@link io.harbinger.check.PredictabilityCheck} (the computation), {@link
 * io.harbinger.check.CheckResult} (its result, with the {@link io.harbinger.check.Advice}), {@link
 * io.harbinger.check.sim.WhatIf} (the simulated what-if, implemented by {@code
 * io.harbinger.check.sim.SimulatedWhatIf}) and {@link io.harbinger.check.CheckCommand} (the command
 * line). Everything else is package-private.
 */
package io.harbinger.check;
