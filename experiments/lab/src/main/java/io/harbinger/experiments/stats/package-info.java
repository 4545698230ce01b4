/**
 * Generic evaluation statistics, which import nothing from the workload model.
 *
 * <p>Public API: {@link io.harbinger.experiments.stats.Percentiles} (nearest rank, the rule of
 * {@code io.harbinger.predictor.NearestRank}), the {@link io.harbinger.experiments.stats.Bootstrap}
 * interface with {@link io.harbinger.experiments.stats.MovingBlockBootstrap} and {@link
 * io.harbinger.experiments.stats.PercentileBootstrap} (its blocks of one), {@link
 * io.harbinger.experiments.stats.Pairing} of per-unit values, the sealed {@link
 * io.harbinger.experiments.stats.Criterion} rules judged by a {@link
 * io.harbinger.experiments.stats.Gate} into {@link io.harbinger.experiments.stats.Verdict}s. They
 * read per-unit values through {@link io.harbinger.experiments.stats.Observations}, so the
 * simulator can pair by window what the production flow pairs by seed.
 *
 * <p>Assumptions and guarantees: every class is immutable or stateless and thread-safe; a bootstrap
 * starts from its seed on every call, so its intervals are deterministic.
 */
package io.harbinger.experiments.stats;
