package io.harbinger.predictor;

/**
 * Informational signals of how well predictions match reality; they never change routing (seed
 * paper section 3.9).
 *
 * @param scored observations scored against the prediction made for them
 * @param matches scored observations whose actual duration fell in the predicted level, under the
 *     boundaries current when scored
 * @param windowAgreement share of matches over the last {@value DriftMonitor#WINDOW} scored
 *     observations, or NaN before the first
 * @param alert whether the drift alert is latched: raised when a full window agrees below 50%,
 *     cleared above 60%
 * @param alerts how many times the alert was raised
 * @param log2ErrorEwma EWMA (alpha 0.01) of |log2(predicted / actual)|, in octaves, or NaN before
 *     the first score
 */
public record DriftSignals(
    long scored,
    long matches,
    double windowAgreement,
    boolean alert,
    long alerts,
    double log2ErrorEwma) {}
