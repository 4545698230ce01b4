/**
 * The production-flow analysis: reporters over an immutable result, as Caffeine's simulator writes
 * its reports.
 *
 * <p>Public API: {@link io.harbinger.experiments.analysis.RunMetrics} of one {@link
 * io.harbinger.experiments.workload.RunRecord}; {@link io.harbinger.experiments.analysis.Analysis}
 * over many (per-arm medians, paired deltas against each arm's FIFO baseline, gate verdicts),
 * computed once and immutable; {@link io.harbinger.experiments.analysis.Gates}, every gate of the
 * project defined once (the production-flow gate, the project's targets, the simulation gates A and
 * B); {@link io.harbinger.experiments.analysis.ReportFormat}, which chooses the reporter (JSON,
 * Markdown, SVG) that writes an analysis; {@link io.harbinger.experiments.analysis.AnalysisMain}
 * runs it on recorded run directories.
 *
 * <p>Assumptions and guarantees: an analysis and its reporters share no mutable state, so they are
 * thread-safe, and the same runs give byte-identical files.
 */
package io.harbinger.experiments.analysis;
