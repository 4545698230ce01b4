/**
 * The production-flow workload: an online shop's background jobs, deterministic per seed.
 *
 * <p>Public API: {@link io.harbinger.experiments.workload.Workload#generate} turns a {@link
 * io.harbinger.experiments.workload.WorkloadConfig} and a {@link
 * io.harbinger.experiments.workload.KernelCalibration} into the list of planned {@link
 * io.harbinger.experiments.workload.Job}s of the nine {@link
 * io.harbinger.experiments.workload.JobType}s; a {@link io.harbinger.experiments.workload.Handler}
 * from a {@link io.harbinger.experiments.workload.HandlerMode} runs each attempt (real {@link
 * io.harbinger.experiments.workload.Kernel}s and sleeps, or sleeps only); {@link
 * io.harbinger.experiments.workload.StaticMap} holds the static-priority map; an arm records each
 * message as a {@link io.harbinger.experiments.workload.MessageRecord} in a {@link
 * io.harbinger.experiments.workload.RunRecord}, which {@link
 * io.harbinger.experiments.workload.RunRecords} writes and reads. {@link
 * io.harbinger.experiments.workload.Calibration} (and {@link
 * io.harbinger.experiments.workload.CalibrationMain}) picks the rate scale for this machine.
 *
 * <p>Source: seed paper section 4, with the job types, rates, phases and cost models of the
 * original implementation's production-flow benchmark. Where this package says "the reference", it
 * means that benchmark as the original implementation ran it ({@link
 * io.harbinger.experiments.workload.WorkloadConfig#reference}).
 */
package io.harbinger.experiments.workload;
