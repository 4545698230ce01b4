package io.harbinger.rabbit;

import io.harbinger.predictor.Keys;
import io.harbinger.predictor.ObserveResult;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decodes report batches from the reports exchange, checks every report and feeds the valid ones to
 * a predictor: the rules every learner applies alike. The entry point of a learner that consumes
 * the reports exchange itself (the sidecar does; an {@link EmbeddedRouter} runs one inside); its
 * counters are {@link IngestStats}.
 *
 * <p>Rules. A message over {@value #MAX_BATCH_BYTES} bytes, or that is not a {@link ReportBatch},
 * is counted and ignored whole. Within a batch, each report is judged alone: an unset or unknown
 * outcome, a key that cannot be formed or is over {@link Keys#MAX_KEY_BYTES} bytes (the key is
 * built from {@code producer} and {@code job_type} with {@link Keys#of}, exactly as the publisher
 * built it), or an acknowledged duration that is negative or above {@link #MAX_DURATION} is counted
 * and ignored. An acknowledged report is learned with {@link Predictor#observe}, a censored one
 * with {@link Predictor#observeCensored}; nacks and rejects are counted and teach nothing (seed
 * paper section 3.3: only successful executions describe a key's cost).
 *
 * <p>Reporters. A batch delivered from RabbitMQ is judged by its reporter, the {@code user-id}
 * RabbitMQ validated when it was published ({@link #ingest(String, byte[])}): a batch from a
 * reporter the {@link TrustedReporters} do not list (or without a {@code user-id}) is counted in
 * {@link IngestStats#untrustedBatches()} and ignored whole, and a report about a producer its
 * reporter may not report for is counted in {@link IngestStats#forgedReports()} and ignored. Each
 * reporter may bring in at most {@code maxKeysPerReporter} distinct keys: it holds a slot per key
 * it reported in the last {@code reporterKeyIdle}, and a report of a new key from a reporter whose
 * slots are all held is counted in {@link IngestStats#reporterKeyLimit()} and ignored. So one
 * reporter flooding new keys fills its own slots, not the predictor's {@code max-keys}: with at
 * most {@code max-keys / maxKeysPerReporter} reporters, every reporter's keys find room. A batch's
 * {@code dropped_since_last} above {@value #MAX_DECLARED_DROPS} cannot come from a {@link
 * ReportPublisher}, which declares at most that many per batch and the rest in the batches after
 * it, so it is counted in {@link IngestStats#rejectedDropCounts()} instead of added: a trusted
 * reporter can add at most {@value #MAX_DECLARED_DROPS} per batch it publishes to {@link
 * IngestStats#reporterDrops()}, whose sum saturates.
 *
 * <p>Example: a batch of three reports, an ack of 2 ms for {@code shop/send_email}, a nack, and an
 * ack of -5 ns, gives one observation, {@link IngestStats#notLearned()} 1 and {@link
 * IngestStats#rejectedDurations()} 1.
 *
 * <p>Thread-safe when the predictor is; never throws for bad input. The per-reporter slots are
 * guarded by one lock per reporter, held for one map operation. A batch is counted after its
 * reports, so a reader that sees n batches counted sees every report of them counted too.
 */
public final class ReportIngestor {

  /** Largest report batch accepted, in bytes (4,096 reports of 256-byte keys fit easily). */
  public static final int MAX_BATCH_BYTES = 1 << 20;

  /** Longest acknowledged duration accepted: one day. */
  public static final Duration MAX_DURATION = Duration.ofDays(1);

  /**
   * Most reports one batch may declare dropped: 8,192, the publisher's default buffer. A publisher
   * that dropped more since its last batch declares them over several batches.
   */
  public static final long MAX_DECLARED_DROPS = 8_192;

  /** Distinct keys one reporter may bring in by default. */
  public static final int DEFAULT_MAX_KEYS_PER_REPORTER = 4096;

  /** How long a reporter holds a key's slot after its last report of it, by default. */
  public static final Duration DEFAULT_REPORTER_KEY_IDLE = Duration.ofMinutes(30);

  private static final long MAX_DURATION_NANOS = MAX_DURATION.toNanos();

  private final Predictor predictor;
  private final Listener listener;
  private final TrustedReporters reporters;
  private final int maxKeysPerReporter;
  private final long reporterKeyIdleNanos;
  private final Ticker ticker;
  private final ConcurrentHashMap<String, ReporterKeys> keysByReporter = new ConcurrentHashMap<>();
  private final LongAdder batches = new LongAdder();
  private final LongAdder malformedBatches = new LongAdder();
  private final LongAdder oversizedBatches = new LongAdder();
  private final LongAdder learned = new LongAdder();
  private final LongAdder censored = new LongAdder();
  private final LongAdder notLearned = new LongAdder();
  private final LongAdder untracked = new LongAdder();
  private final LongAdder rejectedOutcomes = new LongAdder();
  private final LongAdder rejectedKeys = new LongAdder();
  private final LongAdder rejectedDurations = new LongAdder();
  private final AtomicLong reporterDrops = new AtomicLong();
  private final LongAdder rejectedDropCounts = new LongAdder();
  private final LongAdder untrustedBatches = new LongAdder();
  private final LongAdder forgedReports = new LongAdder();
  private final LongAdder reporterKeyLimit = new LongAdder();

  /**
   * Creates an ingestor feeding a predictor.
   *
   * @param predictor the predictor to learn
   */
  public ReportIngestor(Predictor predictor) {
    this(predictor, (key, report) -> {});
  }

  /**
   * Creates an ingestor feeding a predictor and telling a listener about every report it learned
   * from.
   *
   * @param predictor the predictor to learn
   * @param listener called after each accepted or censored report, on the ingesting thread; must
   *     not block
   */
  public ReportIngestor(Predictor predictor, Listener listener) {
    this(builder(predictor).listener(listener));
  }

  private ReportIngestor(Builder b) {
    this.predictor = b.predictor;
    this.listener = b.listener;
    this.reporters = b.reporters;
    this.maxKeysPerReporter = b.maxKeysPerReporter;
    this.reporterKeyIdleNanos = b.reporterKeyIdle.toNanos();
    this.ticker = b.ticker;
  }

  /**
   * Starts configuring an ingestor that judges reporters.
   *
   * @param predictor the predictor to learn
   * @return a builder: no listener, no trusted reporter yet, {@value
   *     #DEFAULT_MAX_KEYS_PER_REPORTER} keys per reporter held for 30 minutes
   */
  public static Builder builder(Predictor predictor) {
    return new Builder(predictor);
  }

  /** Hears about every report that taught the predictor something. */
  @FunctionalInterface
  public interface Listener {
    /**
     * Called after a report was learned.
     *
     * @param key the key it taught
     * @param report the report
     */
    void learned(String key, DurationReport report);
  }

  /**
   * Decodes and ingests one message body from a source that needs no judging (a test, a benchmark,
   * a file): no reporter rules apply.
   *
   * @param body the message body, possibly garbage
   * @return true when it was a well-formed batch (its reports may still have been rejected)
   */
  public boolean ingest(byte[] body) {
    ReportBatch batch = decode(body);
    if (batch == null) {
      return false;
    }
    ingest(batch);
    return true;
  }

  /**
   * Decodes and ingests one message delivered from the reports exchange, judging its reporter.
   *
   * @param reporter the message's {@code user-id} property, which RabbitMQ validated against the
   *     publishing connection's user; null when it carried none
   * @param body the message body, possibly garbage
   * @return true when it was a well-formed batch from a trusted reporter (its reports may still
   *     have been rejected)
   */
  public boolean ingest(String reporter, byte[] body) {
    if (reporters == null || !reporters.trusts(reporter)) {
      untrustedBatches.increment();
      return false;
    }
    ReportBatch batch = decode(body);
    if (batch == null) {
      return false;
    }
    try {
      for (DurationReport report : batch.reports()) {
        if (!reporters.mayReportFor(reporter, report.producer())) {
          forgedReports.increment();
        } else if (admitKey(reporter, report)) {
          ingest(report);
        }
      }
    } finally {
      countBatch(batch);
    }
    return true;
  }

  private ReportBatch decode(byte[] body) {
    if (body == null || body.length > MAX_BATCH_BYTES) {
      oversizedBatches.increment();
      return null;
    }
    try {
      return ReportWire.decode(body);
    } catch (ReportWire.MalformedException e) {
      malformedBatches.increment();
      return null;
    }
  }

  /**
   * Ingests a decoded batch from a source that needs no judging.
   *
   * @param batch the batch
   */
  public void ingest(ReportBatch batch) {
    try {
      for (DurationReport report : batch.reports()) {
        ingest(report);
      }
    } finally {
      countBatch(batch);
    }
  }

  private void countBatch(ReportBatch batch) {
    batches.increment();
    // uint64 on the wire: a value above 2^63 - 1 arrives negative.
    long declared = batch.droppedSinceLast();
    if (declared < 0 || declared > MAX_DECLARED_DROPS) {
      rejectedDropCounts.increment();
    } else if (declared > 0) {
      reporterDrops.accumulateAndGet(
          declared, (a, b) -> a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b);
    }
  }

  /** Returns whether the reporter holds, or can take, a slot for the report's key. */
  private boolean admitKey(String reporter, DurationReport report) {
    ReporterKeys keys = keysByReporter.computeIfAbsent(reporter, r -> new ReporterKeys());
    String key = Keys.of(report.producer(), report.jobType());
    if (key.isEmpty() || keys.admit(key, ticker.nanos())) {
      return true;
    }
    reporterKeyLimit.increment();
    return false;
  }

  /** The key slots of one reporter, least recently reported first. */
  private final class ReporterKeys {
    private final LinkedHashMap<String, Long> lastReported = new LinkedHashMap<>(64, 0.75f, true);

    synchronized boolean admit(String key, long now) {
      if (lastReported.replace(key, now) != null) {
        return true;
      }
      if (lastReported.size() >= maxKeysPerReporter) {
        Map.Entry<String, Long> eldest = lastReported.entrySet().iterator().next();
        if (now - eldest.getValue() < reporterKeyIdleNanos) {
          return false;
        }
        lastReported.remove(eldest.getKey());
      }
      lastReported.put(key, now);
      return true;
    }
  }

  /**
   * Judges and, when valid, learns one report.
   *
   * @param report the report
   * @return what the predictor answered, or null when the report taught nothing
   */
  public ObserveResult ingest(DurationReport report) {
    String key = Keys.of(report.producer(), report.jobType());
    long size = report.size();
    switch (report.settlement()) {
      case ACK -> {
        if (!Keys.isValid(key)) {
          rejectedKeys.increment();
          return null;
        }
        long nanos = report.handlerNanos();
        if (nanos < 0 || nanos > MAX_DURATION_NANOS) {
          rejectedDurations.increment();
          return null;
        }
        if (report.publishedLevel() >= 0 && report.publishedLevel() < predictor.levels()) {
          // Drift signals: score the level stamped at publish against this duration, when the key
          // is trusted
          // now (the report does not say whether it was trusted then), with the key's current
          // estimate.
          Prediction now = predictor.peek(key);
          if (now.isPredicted()) {
            predictor.score(report.publishedLevel(), now.estimateNanos(), nanos);
          }
        }
        return notify(key, report, count(predictor.observe(key, size, nanos), learned));
      }
      case CENSORED -> {
        if (!Keys.isValid(key)) {
          rejectedKeys.increment();
          return null;
        }
        return notify(key, report, count(predictor.observeCensored(key, size), censored));
      }
      case NACK, REJECT -> {
        notLearned.increment();
        return null;
      }
      default -> {
        rejectedOutcomes.increment();
        return null;
      }
    }
  }

  private ObserveResult notify(String key, DurationReport report, ObserveResult result) {
    if (result == ObserveResult.ACCEPTED) {
      listener.learned(key, report);
    }
    return result;
  }

  private ObserveResult count(ObserveResult result, LongAdder onSuccess) {
    switch (result) {
      case ACCEPTED -> onSuccess.increment();
      case UNTRACKED -> untracked.increment();
      case REJECTED_KEY -> rejectedKeys.increment();
      case REJECTED_DURATION -> rejectedDurations.increment();
    }
    return result;
  }

  /**
   * Returns a snapshot of the counters.
   *
   * @return the counters now
   */
  public IngestStats stats() {
    return new IngestStats(
        batches.sum(),
        malformedBatches.sum(),
        oversizedBatches.sum(),
        learned.sum(),
        censored.sum(),
        notLearned.sum(),
        untracked.sum(),
        rejectedOutcomes.sum(),
        rejectedKeys.sum(),
        rejectedDurations.sum(),
        reporterDrops.get(),
        rejectedDropCounts.sum(),
        untrustedBatches.sum(),
        forgedReports.sum(),
        reporterKeyLimit.sum());
  }

  /** Configures a {@link ReportIngestor}; not thread-safe. */
  public static final class Builder {
    private final Predictor predictor;
    private Listener listener = (key, report) -> {};
    private TrustedReporters reporters;
    private int maxKeysPerReporter = DEFAULT_MAX_KEYS_PER_REPORTER;
    private Duration reporterKeyIdle = DEFAULT_REPORTER_KEY_IDLE;
    private Ticker ticker = Ticker.SYSTEM;

    private Builder(Predictor predictor) {
      this.predictor = Objects.requireNonNull(predictor, "predictor");
    }

    /**
     * Sets the listener told about every report learned.
     *
     * @param value called on the ingesting thread; must not block
     * @return this builder
     */
    public Builder listener(Listener value) {
      listener = Objects.requireNonNull(value, "listener");
      return this;
    }

    /**
     * Sets the reporters whose batches {@link ReportIngestor#ingest(String, byte[])} accepts;
     * without it, every delivered batch is refused.
     *
     * @param value the trusted reporters
     * @return this builder
     */
    public Builder reporters(TrustedReporters value) {
      reporters = Objects.requireNonNull(value, "reporters");
      return this;
    }

    /**
     * Sets the most distinct keys one reporter may hold slots for.
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder maxKeysPerReporter(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxKeysPerReporter must be at least 1: " + value);
      }
      maxKeysPerReporter = value;
      return this;
    }

    /**
     * Sets how long a reporter holds a key's slot after its last report of that key.
     *
     * @param value positive
     * @return this builder
     */
    public Builder reporterKeyIdle(Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("reporterKeyIdle must be positive: " + value);
      }
      reporterKeyIdle = value;
      return this;
    }

    /**
     * Sets the monotonic clock of key slots.
     *
     * @param value the ticker
     * @return this builder
     */
    public Builder ticker(Ticker value) {
      ticker = Objects.requireNonNull(value, "ticker");
      return this;
    }

    /**
     * Builds the ingestor.
     *
     * @return the ingestor
     */
    public ReportIngestor build() {
      return new ReportIngestor(this);
    }
  }
}
