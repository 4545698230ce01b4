package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.LongString;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Ticker;
import java.time.Clock;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.zip.CRC32C;

/**
 * Follows the deliveries of one wrapped channel from handler start to settlement and emits one
 * duration report per settled delivery.
 *
 * <p>Implementation notes. A delivery's report is emitted when both its handler has returned and it
 * has been settled (ack, nack or reject), whichever comes last, and its duration runs from handler
 * start to that moment: for a handler that acknowledges inside itself this is the handler time; for
 * one that hands the work to another thread and acknowledges there, it is the time to the
 * acknowledgement. Delivery tags are per channel and increase, so unsettled deliveries sit in a
 * sorted map and {@code multiple=true} settles its head. The acknowledgement itself is sent before
 * any of this runs and is never changed: acknowledgements behave exactly as without Harbinger. With
 * automatic acknowledgement, a delivery is settled when its handler returns: an acknowledgement if
 * it returned normally, a nack if it threw. A delivery that RabbitMQ marks redelivered, and that
 * this process did not itself requeue, had an earlier attempt that never settled (its consumer died
 * or its connection closed): it is reported once as censored (seed paper section 3.5, censored
 * observations). When the channel shuts down its unsettled deliveries are forgotten: their tags are
 * stale, RabbitMQ will redeliver them, and the redelivery is the censored observation (the RabbitMQ
 * Java client's documentation on automatic recovery: delivery tags from before a recovery are
 * stale). A message's identity across redeliveries is its publish stamp and key; a message
 * published without the wrapper has no stamp, so its AMQP {@code message-id} stands in, or failing
 * that a CRC-32C of its body and its length. A message's stamp is read by {@link StampHeader#read}:
 * one that cannot be read (malformed, from a newer producer, a level outside the options' levels)
 * is still handed to the handler and reported, at unknown level, and counted ({@link
 * AdapterStats#unreadableStamps()}). Censoring is per message, not per handler: every delivery that
 * RabbitMQ marks redelivered and this process did not requeue counts, so a consumer with prefetch
 * above 1 whose connection dies turns every delivery it had prefetched (including those whose
 * handler never started) into one censored observation each.
 *
 * <p>Thread safety: every method may be called from any thread; acknowledgements from other threads
 * than the delivering one are supported. Nothing blocks; the report sink must not block.
 */
final class DeliveryTracker {

  private static final int HANDLER_DONE = 1;
  private static final int SETTLED = 2;

  private final String jobTypeHeader;
  private final int levels;
  private final boolean producerFromAppId;
  private final boolean sizeHints;
  private final ReportSink sink;
  private final AdapterStats stats;
  private final Clock clock;
  private final Ticker ticker;
  private final Requeues requeues;
  private final ConcurrentSkipListMap<Long, InFlight> unsettled = new ConcurrentSkipListMap<>();

  /**
   * Creates the tracker of one channel, sharing the process's record of requeued messages.
   *
   * @param options the job-type header, size hints, report sink, counters and clocks
   * @return the tracker
   */
  static DeliveryTracker create(ChannelOptions options) {
    return new DeliveryTracker(options, Requeues.SHARED);
  }

  DeliveryTracker(ChannelOptions options, Requeues requeues) {
    jobTypeHeader = options.jobTypeHeader();
    levels = options.levels();
    producerFromAppId = options.producerProperty() == ProducerProperty.APP_ID;
    sizeHints = options.sizeHints();
    sink = options.reports();
    stats = options.stats();
    clock = options.clock();
    ticker = options.ticker();
    this.requeues = requeues;
  }

  /**
   * Starts following a delivery, just before its handler runs.
   *
   * @param envelope the delivery's envelope
   * @param props its properties, or null
   * @param body its body, or null
   * @param autoAck whether the consumer acknowledges automatically
   * @return the delivery's state, to pass to {@link #handlerDone}
   */
  InFlight begin(Envelope envelope, AMQP.BasicProperties props, byte[] body, boolean autoAck) {
    return begin(
        envelope.getDeliveryTag(),
        envelope.isRedeliver(),
        props == null ? null : props.getUserId(),
        props == null ? null : props.getAppId(),
        props == null ? null : props.getMessageId(),
        props == null ? null : props.getHeaders(),
        body,
        autoAck);
  }

  /**
   * Starts following a delivery, just before its handler runs, from the delivery's values.
   *
   * @param deliveryTag the delivery tag on this tracker's channel
   * @param redelivered whether RabbitMQ marked the delivery redelivered
   * @param userId the message's {@code user-id}, or null
   * @param appId the message's {@code app-id}, or null; the producer part of the key when the
   *     options say {@link ProducerProperty#APP_ID}
   * @param messageId the message's {@code message-id}, or null; its identity across redeliveries
   *     when it was published without the wrapper
   * @param headers the message's headers, or null
   * @param body its body, or null
   * @param autoAck whether the delivery is settled when its handler returns
   * @return the delivery's state, to pass to {@link #handlerDone}
   */
  InFlight begin(
      long deliveryTag,
      boolean redelivered,
      String userId,
      String appId,
      String messageId,
      Map<String, ?> headers,
      byte[] body,
      boolean autoAck) {
    long startNanos = ticker.nanos();
    InFlight f =
        new InFlight(
            redelivered, producerFromAppId ? appId : userId, messageId, headers, body, startNanos);
    if (redelivered && !requeues.forget(f.identity())) {
      emit(f, Settlement.CENSORED, 0);
    }
    if (!autoAck) {
      unsettled.put(deliveryTag, f);
    } else {
      f.autoAck = true;
    }
    return f;
  }

  /**
   * Marks a delivery's handler as returned, or as thrown.
   *
   * @param f the state from {@link #begin}
   * @param succeeded whether the handler returned normally
   */
  void handlerDone(InFlight f, boolean succeeded) {
    long now = ticker.nanos();
    f.handlerEndNanos = now;
    if (f.autoAck) {
      f.outcome = succeeded ? Settlement.ACK : Settlement.NACK;
      f.settledNanos = now;
      STATE.set(f, HANDLER_DONE | SETTLED);
      emit(f, f.outcome, now - f.startNanos);
      return;
    }
    if (STATE.addAndGet(f, HANDLER_DONE) == (HANDLER_DONE | SETTLED)) {
      emit(f, f.outcome, Math.max(now, f.settledNanos) - f.startNanos);
    }
  }

  /**
   * Records a settlement that the delegate channel has accepted.
   *
   * @param deliveryTag the tag, or 0 with {@code multiple} for every unsettled delivery
   * @param multiple whether every delivery up to the tag is settled
   * @param outcome ack, nack or reject
   * @param requeue whether the message goes back to its queue
   */
  void settle(long deliveryTag, boolean multiple, Settlement outcome, boolean requeue) {
    long now = ticker.nanos();
    if (!multiple) {
      InFlight f = unsettled.remove(deliveryTag);
      if (f == null) {
        stats.increment(Counter.UNMATCHED_SETTLE);
      } else {
        settle(f, now, outcome, requeue);
      }
      return;
    }
    ConcurrentNavigableMap<Long, InFlight> head =
        deliveryTag == 0 ? unsettled : unsettled.headMap(deliveryTag, true);
    boolean any = false;
    for (Iterator<Map.Entry<Long, InFlight>> it = head.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, InFlight> e = it.next();
      if (unsettled.remove(e.getKey(), e.getValue())) {
        any = true;
        settle(e.getValue(), now, outcome, requeue);
      }
    }
    if (!any) {
      stats.increment(Counter.UNMATCHED_SETTLE);
    }
  }

  /**
   * Returns the tags of the deliveries whose handler has started and that are not settled yet, up
   * to a bound: a snapshot.
   *
   * @param upTo the highest tag to return
   * @return the tags, in ascending order
   */
  NavigableSet<Long> unsettledTags(long upTo) {
    return new TreeSet<>(unsettled.headMap(upTo, true).keySet());
  }

  /** Records that every unsettled delivery goes back to its queue ({@code basic.recover}). */
  void recoverAll() {
    for (InFlight f : unsettled.values()) {
      requeues.remember(f.identity());
    }
    unsettled.clear();
  }

  /** Forgets every unsettled delivery: their tags died with the channel. */
  void clear() {
    unsettled.clear();
  }

  /**
   * Returns the number of deliveries awaiting settlement.
   *
   * @return the count
   */
  int unsettledCount() {
    return unsettled.size();
  }

  private void settle(InFlight f, long now, Settlement outcome, boolean requeue) {
    f.outcome = outcome;
    f.settledNanos = now;
    if (requeue) {
      requeues.remember(f.identity());
    }
    if (STATE.addAndGet(f, SETTLED) == (HANDLER_DONE | SETTLED)) {
      emit(f, outcome, Math.max(now, f.handlerEndNanos) - f.startNanos);
    }
  }

  private void emit(InFlight f, Settlement outcome, long durationNanos) {
    DurationReport r =
        new DurationReport(
            f.producer,
            f.jobType,
            sizeHints ? f.sizeHint : -1,
            outcome,
            outcome == Settlement.CENSORED ? 0 : Math.max(0, durationNanos),
            f.waitMicros,
            f.level,
            f.redelivered,
            Math.max(0, f.publishedAtMicros),
            MessageStamper.epochMicros(clock));
    stats.increment(Counter.REPORT);
    if (outcome == Settlement.CENSORED) {
      stats.increment(Counter.CENSORED);
    }
    try {
      sink.accept(r);
    } catch (RuntimeException e) {
      stats.increment(Counter.SINK_FAILURE);
    }
  }

  /** The state of one delivery between handler start and report. */
  /** Updates an {@link InFlight}'s state without an atomic object per delivery. */
  private static final AtomicIntegerFieldUpdater<InFlight> STATE =
      AtomicIntegerFieldUpdater.newUpdater(InFlight.class, "state");

  final class InFlight {
    final String producer;
    final String jobType;
    final int bodyLength;
    final long sizeHint;
    final long startNanos;
    final long publishedAtMicros;
    final long waitMicros;
    final int level;
    final boolean redelivered;
    final String unstampedIdentity;

    /** {@code HANDLER_DONE} and {@code SETTLED} as they happen, through {@link #STATE}. */
    volatile int state;

    boolean autoAck;
    volatile long handlerEndNanos;
    volatile long settledNanos;
    volatile Settlement outcome;

    InFlight(
        boolean redelivered,
        String user,
        String messageId,
        Map<String, ?> headers,
        byte[] body,
        long startNanos) {
      this.startNanos = startNanos;
      this.bodyLength = body == null ? 0 : body.length;
      this.sizeHint = sizeHints ? SizeHints.of(headers, bodyLength, stats) : bodyLength;
      this.redelivered = redelivered;
      producer = user == null ? "" : user;
      jobType = jobType(headers, jobTypeHeader);
      StampHeader.Reading stamp = StampHeader.read(headers, levels);
      if (!stamp.understood()) {
        stats.increment(Counter.UNREADABLE_STAMP);
      }
      publishedAtMicros = stamp.publishedAtMicros();
      waitMicros =
          publishedAtMicros > 0
              ? Math.max(0, MessageStamper.epochMicros(clock) - publishedAtMicros)
              : -1;
      level = stamp.level();
      if (publishedAtMicros > 0) {
        unstampedIdentity = null;
      } else if (messageId != null) {
        unstampedIdentity = "id:" + messageId;
      } else {
        CRC32C crc = new CRC32C();
        if (body != null) {
          crc.update(body);
        }
        unstampedIdentity = "body:" + Long.toHexString(crc.getValue()) + ":" + bodyLength;
      }
    }

    /**
     * The message's identity across redeliveries: publish stamp and key, or for a message published
     * without the wrapper its message id or body checksum, and key.
     */
    String identity() {
      String key = Keys.of(producer, jobType);
      return unstampedIdentity == null
          ? publishedAtMicros + "/" + key
          : unstampedIdentity + "/" + key;
    }
  }

  /**
   * The job-type label of a delivery: its {@code jobTypeHeader} header when that is a string, else
   * empty.
   */
  static String jobType(Map<String, ?> headers, String jobTypeHeader) {
    Object jt = headers == null ? null : headers.get(jobTypeHeader);
    return jt instanceof String || jt instanceof LongString ? jt.toString() : "";
  }
}
