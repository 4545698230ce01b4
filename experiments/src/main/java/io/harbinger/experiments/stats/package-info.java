/**
 * Evaluation statistics and the production-flow analysis.
 *
 * <p>Generic statistics: {@link io.harbinger.experiments.stats.Percentiles} (nearest rank), the
 * {@link io.harbinger.experiments.stats.Bootstrap} interface with {@link
 * io.harbinger.experiments.stats.PercentileBootstrap} and {@link
 * io.harbinger.experiments.stats.MovingBlockBootstrap}, {@link
 * io.harbinger.experiments.stats.Pairing} of per-unit values, the sealed {@link
 * io.harbinger.experiments.stats.Criterion} rules judged by a {@link
 * io.harbinger.experiments.stats.Gate} into {@link io.harbinger.experiments.stats.Verdict}s. They
 * read per-unit values through {@link io.harbinger.experiments.stats.Observations}, so the
 * simulator can pair by window what the production flow pairs by seed.
 *
 * <p>Production-flow analysis: {@link io.harbinger.experiments.stats.RunMetrics} of one {@link
 * io.harbinger.experiments.workload.RunRecord}, and {@link
 * io.harbinger.experiments.stats.AnalysisReport} over many (summary.json, report.md, SVG charts);
 * {@link io.harbinger.experiments.stats.AnalysisMain} runs it on recorded run directories.
 */
package io.harbinger.experiments.stats;
