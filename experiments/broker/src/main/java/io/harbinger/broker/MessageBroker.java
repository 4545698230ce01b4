package io.harbinger.broker;

import com.google.protobuf.ByteString;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import io.harbinger.scheduler.IngressPolicy;
import io.harbinger.scheduler.Scheduler;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The delivery state machine of Harbinger's broker (seed paper section 3.2 and its figure 3, with
 * the original implementation's ingress, lease, settlement and TTL rules), with no gRPC inside.
 *
 * <p>A message is queued until a pull selects it; it is then in flight, owned by one consumer under
 * one attempt token until its lease deadline. An Ack within the lease completes it; a Nack or an
 * expired lease sends it back to the tail of its original level while failures remain below {@code
 * maxRetries}, then to the dead-letter queue; a TTL that runs out (counted from arrival)
 * dead-letters it. Example with the defaults: a message nacked twice and then acked is delivered
 * three times and completes; one nacked three times is dead-lettered with "Exceeded max_retries=3;
 * last reason: ...".
 *
 * <p>Implementation notes: settlements are remembered by attempt token for {@code
 * completionRetention} (at most {@code completionCacheSize}), so a repeated Ack or Nack is answered
 * as before without repeating its effect, a different settlement of the same attempt is refused
 * with FAILED_PRECONDITION, and another consumer's with PERMISSION_DENIED. A token that is not the
 * live attempt of a message the broker still holds is stale (FAILED_PRECONDITION); a token of
 * nothing the broker holds is NOT_FOUND. The predictor learns only from a first-time Ack within the
 * lease and the TTL whose duration lies in [0, lease]; an expired lease is recorded as censored
 * (seed paper sections 3.4 and 3.5, with the original implementation's range check). Learning and
 * routing run outside the lock. Leases all have the same length, so the live deliveries are kept in
 * dispatch order and expire from the head.
 *
 * <p>Assumptions and guarantees: thread-safe. Every operation takes one lock for O(1) work (plus
 * the expired leases and TTLs it finds); only {@link #pull} blocks, for at most its timeout, in
 * chunks of 100 ms so that a cancelled caller is noticed. Broker logic reads the injected ticker;
 * the pull wait is measured in real time. Expiry of leases and TTLs happens when {@link #maintain}
 * runs (the server calls it every 100 ms) and whenever a pull or settlement meets them. All state
 * is in memory.
 */
public final class MessageBroker {

  /** The header the broker adds with the producer id. */
  public static final String PRODUCER_HEADER = "x-harbinger-producer";

  /** The header carrying a size hint, a non-negative integer. */
  public static final String SIZE_HINT_HEADER = "x-size-hint";

  /** The header carrying the oracle arm's true cost tier. */
  public static final String ORACLE_TIER_HEADER = "x-harbinger-oracle-tier";

  /** The most headers per message. */
  public static final int MAX_HEADERS = 64;

  /** The longest header name, UTF-8 bytes. */
  public static final int MAX_HEADER_NAME_BYTES = 256;

  /** The longest header value, UTF-8 bytes. */
  public static final int MAX_HEADER_VALUE_BYTES = 4096;

  /** The longest attempt token. */
  public static final int MAX_TOKEN_LENGTH = 128;

  private static final long WAIT_CHUNK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final int MAX_REASON_LENGTH = 1024;

  private enum Op {
    ACK,
    NACK,
    EXPIRED
  }

  private record Settled(Op op, String consumerId, String messageId, long atNanos) {}

  private record Waiting(PullWaiter waiter, String consumerId, long giveUpAtNanos) {}

  private record Handoff(PullWaiter waiter, Delivered delivery) {}

  private final BrokerConfig config;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final IngressPolicy ingress;
  private final String instance;
  private final long leaseNanos;
  private final long retentionNanos;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition available = lock.newCondition();
  private final Set<String> producers = ConcurrentHashMap.newKeySet();
  private final Set<String> consumers = ConcurrentHashMap.newKeySet();
  private final Map<String, StoredMessage> messages = new HashMap<>();
  private final Map<String, Delivery> inFlight = new HashMap<>();
  private final LinkedHashMap<String, Settled> settled = new LinkedHashMap<>();
  private final PriorityQueue<StoredMessage> ttlQueue =
      new PriorityQueue<>((a, b) -> Long.compare(a.expiresAtNanos(), b.expiresAtNanos()));
  private final ArrayDeque<DeadLetter> deadLetters = new ArrayDeque<>();
  private final ArrayDeque<Waiting> waiters = new ArrayDeque<>();
  private Delivery leaseHead;
  private Delivery leaseTail;
  private long sequence;
  private final AtomicLong messageIds = new AtomicLong();

  private long submitted;
  private long deliveries;
  private long completed;
  private long nacks;
  private long leaseExpiries;
  private long deadLettered;
  private long replays;
  private long learned;
  private long promotions;

  /**
   * Creates a broker.
   *
   * @param config the settings
   * @param predictor the predictor for the predictive and shadow arms; may be null for the others
   * @param ticker the clock for leases, TTLs, aging and replay retention
   */
  public MessageBroker(BrokerConfig config, Predictor predictor, Ticker ticker) {
    this.config = Objects.requireNonNull(config, "config");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.scheduler = config.scheduler().newScheduler(ticker);
    this.ingress = config.policy().newIngress(config.scheduler().levels(), predictor);
    this.leaseNanos = config.lease().toNanos();
    this.retentionNanos = config.completionRetention().toNanos();
    SecureRandom random = new SecureRandom();
    this.instance = Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
  }

  /** Returns the settings. */
  public BrokerConfig config() {
    return config;
  }

  /**
   * Registers a producer.
   *
   * @return its id
   * @throws BrokerException RESOURCE_EXHAUSTED when too many are registered
   */
  public String registerProducer() {
    lock.lock();
    try {
      if (producers.size() >= config.maxClients()) {
        throw BrokerException.exhausted("at most " + config.maxClients() + " producers");
      }
      String id = "p-" + instance + "-" + (++sequence);
      producers.add(id);
      return id;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns whether an id belongs to a registered consumer.
   *
   * @param consumerId the id
   * @return true when registered
   */
  public boolean isConsumer(String consumerId) {
    return consumerId != null && consumers.contains(consumerId);
  }

  /**
   * Registers a consumer.
   *
   * @return its id
   * @throws BrokerException RESOURCE_EXHAUSTED when too many are registered
   */
  public String registerConsumer() {
    lock.lock();
    try {
      if (consumers.size() >= config.maxClients()) {
        throw BrokerException.exhausted("at most " + config.maxClients() + " consumers");
      }
      String id = "c-" + instance + "-" + (++sequence);
      consumers.add(id);
      return id;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Accepts a message and places it at the level its ingress policy chooses.
   *
   * @param producerId a registered producer's id
   * @param payload the body, at most the configured payload limit
   * @param headers the headers (see the limits on this class)
   * @param ttlMillis the TTL from arrival in ms; empty for the default, 0 for none, never negative
   * @return the message id
   * @throws BrokerException PERMISSION_DENIED for an unregistered producer, INVALID_ARGUMENT for
   *     bad input
   */
  public String submit(
      String producerId, ByteString payload, Map<String, String> headers, OptionalLong ttlMillis) {
    requireRegistered(producers, producerId, "producer");
    if (payload.size() > config.maxPayloadBytes()) {
      throw BrokerException.invalid(
          "payload must be at most " + config.maxPayloadBytes() + " bytes: " + payload.size());
    }
    long ttlNanos = resolveTtlNanos(ttlMillis);
    checkHeaders(headers);
    String jobType = headers.get(config.jobTypeHeader());
    if (jobType != null && Keys.utf8Length(jobType) > Keys.MAX_LABEL_BYTES) {
      throw BrokerException.invalid(
          config.jobTypeHeader()
              + " must be at most "
              + Keys.MAX_LABEL_BYTES
              + " UTF-8 bytes: "
              + Keys.utf8Length(jobType));
    }
    long sizeHint = parseSizeHint(headers.get(SIZE_HINT_HEADER));
    int oracleTier = parseTier(headers.get(ORACLE_TIER_HEADER));
    Map<String, String> stored = new HashMap<>(headers);
    stored.put(PRODUCER_HEADER, producerId);
    String id = "m-" + instance + "-" + messageIds.incrementAndGet();
    List<Handoff> handoffs;
    StoredMessage message =
        new StoredMessage(
            id,
            payload,
            Map.copyOf(stored),
            Keys.of(producerId, jobType),
            jobType,
            sizeHint,
            oracleTier);
    ingress.route(message);
    lock.lock();
    try {
      scheduler.submit(message);
      if (ttlNanos > 0) {
        message.expireAt(message.arrivalNanos() + ttlNanos);
        ttlQueue.add(message);
      }
      messages.put(id, message);
      submitted++;
      handoffs = serveWaiters(ticker.nanos());
    } finally {
      lock.unlock();
    }
    complete(handoffs);
    return id;
  }

  private long resolveTtlNanos(OptionalLong ttlMillis) {
    if (ttlMillis.isEmpty()) {
      return config.defaultTtl().toNanos();
    }
    long ms = ttlMillis.getAsLong();
    if (ms < 0) {
      throw BrokerException.invalid("ttl_ms must not be negative: " + ms);
    }
    return ms >= Long.MAX_VALUE / 1_000_000 ? 0 : TimeUnit.MILLISECONDS.toNanos(ms);
  }

  private static void checkHeaders(Map<String, String> headers) {
    if (headers.size() > MAX_HEADERS) {
      throw BrokerException.invalid(
          "headers must number at most " + MAX_HEADERS + ": " + headers.size());
    }
    for (Map.Entry<String, String> e : headers.entrySet()) {
      int nameBytes = Keys.utf8Length(e.getKey());
      if (nameBytes == 0 || nameBytes > MAX_HEADER_NAME_BYTES) {
        throw BrokerException.invalid(
            "header names must be 1 to " + MAX_HEADER_NAME_BYTES + " UTF-8 bytes: " + nameBytes);
      }
      int valueBytes = Keys.utf8Length(e.getValue());
      if (valueBytes > MAX_HEADER_VALUE_BYTES) {
        throw BrokerException.invalid(
            "header "
                + abbreviate(e.getKey())
                + " must be at most "
                + MAX_HEADER_VALUE_BYTES
                + " UTF-8 bytes: "
                + valueBytes);
      }
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }

  private static long parseSizeHint(String value) {
    if (value == null) {
      return -1;
    }
    try {
      long size = Long.parseLong(value);
      if (size >= 0) {
        return size;
      }
    } catch (NumberFormatException e) {
      // fall through to the refusal
    }
    throw BrokerException.invalid(
        SIZE_HINT_HEADER + " must be a non-negative integer: " + abbreviate(value));
  }

  private static int parseTier(String value) {
    if (value == null || value.length() != 1 || !Character.isDigit(value.charAt(0))) {
      return -1;
    }
    return value.charAt(0) - '0';
  }

  /**
   * Waits for the next message and delivers it under a new attempt token and lease.
   *
   * @param consumerId a registered consumer's id
   * @param timeoutMillis how long to wait; 0 for the maximum wait, capped at it, never negative
   * @param cancelled tells whether the caller has gone away; a message selected for a cancelled
   *     caller goes back to the front of its level with its charge refunded
   * @return the delivery, or null when nothing arrived in time or the caller was cancelled
   * @throws BrokerException PERMISSION_DENIED for an unregistered consumer, INVALID_ARGUMENT for a
   *     negative timeout
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public Delivered pull(String consumerId, long timeoutMillis, BooleanSupplier cancelled)
      throws InterruptedException {
    requireRegistered(consumers, consumerId, "consumer");
    if (timeoutMillis < 0) {
      throw BrokerException.invalid("timeout_ms must not be negative: " + timeoutMillis);
    }
    long maxWaitNanos = config.maxPullWait().toNanos();
    long waitNanos =
        timeoutMillis == 0
            ? maxWaitNanos
            : Math.min(maxWaitNanos, TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
    long giveUpAt = System.nanoTime() + waitNanos;
    List<StoredMessage> censored = null;
    Delivered result = null;
    lock.lockInterruptibly();
    try {
      while (true) {
        long now = ticker.nanos();
        censored = expireLeases(now, censored);
        StoredMessage message = nextLive(now);
        if (message != null) {
          if (cancelled.getAsBoolean()) {
            scheduler.requeueFront(message);
            available.signal();
            break;
          }
          result = deliver(message, consumerId, now);
          break;
        }
        long remaining = giveUpAt - System.nanoTime();
        if (remaining <= 0 || cancelled.getAsBoolean()) {
          break;
        }
        available.awaitNanos(Math.min(remaining, WAIT_CHUNK_NANOS));
      }
    } finally {
      lock.unlock();
    }
    learnCensored(censored);
    return result;
  }

  private StoredMessage nextLive(long now) {
    while (true) {
      StoredMessage message = (StoredMessage) scheduler.poll();
      if (message == null || !message.isExpired(now)) {
        return message;
      }
      deadLetter(message, DeadLetter.Reason.TTL_EXPIRED, "TTL expired before delivery", now);
    }
  }

  private Delivered deliver(StoredMessage message, String consumerId, long now) {
    String token = instance + "-a" + (++sequence);
    Delivery delivery = new Delivery(token, consumerId, message, now + leaseNanos);
    message.state = StoredMessage.State.IN_FLIGHT;
    message.live = delivery;
    message.deliveries++;
    inFlight.put(token, delivery);
    linkLease(delivery);
    deliveries++;
    return new Delivered(
        message.id,
        message.payload,
        message.headers,
        token,
        config.lease().toMillis(),
        message.deliveries);
  }

  /**
   * Settles a delivery as done.
   *
   * @param consumerId the consumer that pulled it
   * @param messageId the message id
   * @param attemptToken the delivery's token
   * @param handlerNanos the handler's duration; learned only in [0, lease]
   * @throws BrokerException see the class notes for the refusals
   */
  public void ack(String consumerId, String messageId, String attemptToken, long handlerNanos) {
    settle(Op.ACK, consumerId, messageId, attemptToken, handlerNanos, null);
  }

  /**
   * Settles a delivery as failed.
   *
   * @param consumerId the consumer that pulled it
   * @param messageId the message id
   * @param attemptToken the delivery's token
   * @param handlerNanos the handler's duration (not learned)
   * @param reason why the handler failed
   * @throws BrokerException see the class notes for the refusals
   */
  public void nack(
      String consumerId, String messageId, String attemptToken, long handlerNanos, String reason) {
    settle(Op.NACK, consumerId, messageId, attemptToken, handlerNanos, reason);
  }

  private void settle(
      Op op, String consumerId, String messageId, String token, long handlerNanos, String reason) {
    requireRegistered(consumers, consumerId, "consumer");
    checkToken(token);
    if (messageId == null || messageId.isEmpty()) {
      throw BrokerException.invalid("message_id must not be empty");
    }
    StoredMessage learnFrom = null;
    List<StoredMessage> censored = null;
    List<Handoff> handoffs = null;
    lock.lock();
    try {
      long now = ticker.nanos();
      Settled before = settled.get(token);
      if (before != null) {
        if (!before.consumerId.equals(consumerId)) {
          throw BrokerException.denied("attempt belongs to another consumer: " + token);
        }
        if (before.op == op && before.messageId.equals(messageId)) {
          replays++;
          return;
        }
        throw BrokerException.precondition("Attempt already settled or expired: " + token);
      }
      Delivery delivery = inFlight.get(token);
      if (delivery == null) {
        if (messages.containsKey(messageId)) {
          throw BrokerException.precondition(
              "stale attempt token: message " + messageId + " has no live delivery " + token);
        }
        throw BrokerException.notFound("no delivery for attempt token " + token);
      }
      StoredMessage message = delivery.message;
      if (!message.id.equals(messageId)) {
        throw BrokerException.invalid(
            "attempt token " + token + " belongs to another message, not " + messageId);
      }
      if (!delivery.consumerId.equals(consumerId)) {
        throw BrokerException.denied("attempt belongs to another consumer: " + token);
      }
      if (now >= delivery.deadlineNanos) {
        censored = new ArrayList<>(1);
        expire(delivery, now, censored);
        handoffs = serveWaiters(now);
        throw BrokerException.precondition("Delivery lease expired: " + token);
      }
      endDelivery(delivery);
      remember(token, op, consumerId, messageId, now);
      if (op == Op.ACK) {
        if (message.isExpired(now)) {
          deadLetter(message, DeadLetter.Reason.TTL_EXPIRED, "TTL expired before the Ack", now);
        } else {
          message.state = StoredMessage.State.DONE;
          messages.remove(message.id);
          completed++;
          if (handlerNanos >= 0 && handlerNanos <= leaseNanos) {
            scheduler.completed(message, handlerNanos);
            learnFrom = message;
            learned++;
          }
        }
      } else {
        nacks++;
        fail(message, reason == null || reason.isEmpty() ? "nack" : truncate(reason), now);
        handoffs = serveWaiters(now);
      }
    } finally {
      lock.unlock();
      complete(handoffs);
      learnCensored(censored);
    }
    if (learnFrom != null) {
      ingress.observe(learnFrom, handlerNanos);
    }
  }

  private static String truncate(String reason) {
    return reason.length() <= MAX_REASON_LENGTH ? reason : reason.substring(0, MAX_REASON_LENGTH);
  }

  private static void checkToken(String token) {
    if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
      throw BrokerException.invalid(
          "attempt_token must be 1 to "
              + MAX_TOKEN_LENGTH
              + " characters: "
              + (token == null ? 0 : token.length()));
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) {
        throw BrokerException.invalid(
            "attempt_token must be letters, digits or '-': " + abbreviate(token));
      }
    }
  }

  private static void requireRegistered(Set<String> registered, String id, String role) {
    if (id == null || !registered.contains(id)) {
      throw BrokerException.denied(
          role + " is not registered: " + (id == null ? "null" : abbreviate(id)));
    }
  }

  private void remember(String token, Op op, String consumerId, String messageId, long now) {
    settled.put(token, new Settled(op, consumerId, messageId, now));
    Iterator<Settled> it = settled.values().iterator();
    while (it.hasNext()) {
      Settled oldest = it.next();
      if (settled.size() > config.completionCacheSize() || now - oldest.atNanos > retentionNanos) {
        it.remove();
      } else {
        break;
      }
    }
  }

  private void endDelivery(Delivery delivery) {
    inFlight.remove(delivery.token);
    unlinkLease(delivery);
    delivery.message.live = null;
  }

  private void fail(StoredMessage message, String reason, long now) {
    if (message.isExpired(now)) {
      deadLetter(
          message, DeadLetter.Reason.TTL_EXPIRED, "TTL expired; last failure: " + reason, now);
      return;
    }
    message.failures++;
    if (message.failures >= config.maxRetries()) {
      deadLetter(
          message,
          DeadLetter.Reason.MAX_RETRIES_EXCEEDED,
          "Exceeded max_retries=" + config.maxRetries() + "; last reason: " + reason,
          now);
      return;
    }
    message.state = StoredMessage.State.QUEUED;
    scheduler.retry(message);
    if (message.expiresAtNanos() != Long.MAX_VALUE) {
      ttlQueue.add(message);
    }
    available.signal();
  }

  private void expire(Delivery delivery, long now, List<StoredMessage> censored) {
    endDelivery(delivery);
    remember(delivery.token, Op.EXPIRED, delivery.consumerId, delivery.message.id, now);
    leaseExpiries++;
    censored.add(delivery.message);
    fail(delivery.message, "lease expired", now);
  }

  private List<StoredMessage> expireLeases(long now, List<StoredMessage> censored) {
    List<StoredMessage> out = censored;
    while (leaseHead != null && now >= leaseHead.deadlineNanos) {
      if (out == null) {
        out = new ArrayList<>();
      }
      expire(leaseHead, now, out);
    }
    return out;
  }

  private void expireTtls(long now) {
    while (!ttlQueue.isEmpty() && ttlQueue.peek().isExpired(now)) {
      StoredMessage message = ttlQueue.poll();
      if (message.state == StoredMessage.State.QUEUED && scheduler.remove(message)) {
        deadLetter(message, DeadLetter.Reason.TTL_EXPIRED, "TTL expired while queued", now);
      }
    }
  }

  private void deadLetter(
      StoredMessage message, DeadLetter.Reason reason, String details, long now) {
    message.state = StoredMessage.State.DEAD;
    messages.remove(message.id);
    if (deadLetters.size() >= config.dlqCapacity()) {
      deadLetters.pollFirst();
    }
    deadLetters.addLast(
        new DeadLetter(
            message.id, message.payload, message.headers, reason, details, now, message.failures));
    deadLettered++;
  }

  private void learnCensored(List<StoredMessage> censored) {
    if (censored != null) {
      for (StoredMessage m : censored) {
        ingress.observeCensored(m);
      }
    }
  }

  private void linkLease(Delivery d) {
    d.prev = leaseTail;
    d.next = null;
    if (leaseTail == null) {
      leaseHead = d;
    } else {
      leaseTail.next = d;
    }
    leaseTail = d;
    d.linked = true;
  }

  private void unlinkLease(Delivery d) {
    if (!d.linked) {
      return;
    }
    if (d.prev == null) {
      leaseHead = d.next;
    } else {
      d.prev.next = d.next;
    }
    if (d.next == null) {
      leaseTail = d.prev;
    } else {
      d.next.prev = d.prev;
    }
    d.prev = null;
    d.next = null;
    d.linked = false;
  }

  /**
   * Expires the leases and TTLs that have run out: expired leases are retried (or dead-lettered)
   * and recorded as censored; expired queued messages are dead-lettered.
   */
  public void maintain() {
    List<StoredMessage> censored;
    List<Handoff> handoffs;
    List<PullWaiter> expired = new ArrayList<>();
    lock.lock();
    try {
      long now = ticker.nanos();
      censored = expireLeases(now, null);
      expireTtls(now);
      handoffs = serveWaiters(now);
      long realNow = System.nanoTime();
      Iterator<Waiting> it = waiters.iterator();
      while (it.hasNext()) {
        Waiting w = it.next();
        if (w.waiter.isCancelled() || realNow - w.giveUpAtNanos >= 0) {
          it.remove();
          expired.add(w.waiter);
        }
      }
    } finally {
      lock.unlock();
    }
    complete(handoffs);
    for (PullWaiter w : expired) {
      w.timedOut();
    }
    learnCensored(censored);
  }

  /**
   * Pulls without blocking a thread: delivers at once when a message is waiting, otherwise parks
   * the waiter until a message arrives (it is then delivered by the thread that made it available)
   * or until its timeout passes (noticed by {@link #maintain}, so up to 100 ms late when the server
   * runs it every 100 ms).
   *
   * @param consumerId a registered consumer's id
   * @param timeoutMillis how long to wait; 0 for the maximum wait, capped at it, never negative
   * @param waiter receives the delivery or the timeout, outside the broker's lock
   * @throws BrokerException PERMISSION_DENIED for an unregistered consumer, INVALID_ARGUMENT for a
   *     negative timeout
   */
  public void pullAsync(String consumerId, long timeoutMillis, PullWaiter waiter) {
    requireRegistered(consumers, consumerId, "consumer");
    if (timeoutMillis < 0) {
      throw BrokerException.invalid("timeout_ms must not be negative: " + timeoutMillis);
    }
    long maxWaitNanos = config.maxPullWait().toNanos();
    long waitNanos =
        timeoutMillis == 0
            ? maxWaitNanos
            : Math.min(maxWaitNanos, TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
    Delivered delivered = null;
    List<StoredMessage> censored;
    List<Handoff> handoffs = null;
    lock.lock();
    try {
      long now = ticker.nanos();
      censored = expireLeases(now, null);
      if (censored != null) {
        handoffs = serveWaiters(now);
      }
      StoredMessage message = nextLive(now);
      if (message != null) {
        delivered = deliver(message, consumerId, now);
      } else {
        waiters.addLast(new Waiting(waiter, consumerId, System.nanoTime() + waitNanos));
      }
    } finally {
      lock.unlock();
    }
    complete(handoffs);
    learnCensored(censored);
    if (delivered != null) {
      waiter.deliver(delivered);
    }
  }

  /**
   * Withdraws a parked waiter (its caller went away).
   *
   * @param waiter the waiter
   * @return true when it was still parked; it is then told nothing more
   */
  public boolean cancel(PullWaiter waiter) {
    lock.lock();
    try {
      return waiters.removeIf(w -> w.waiter == waiter);
    } finally {
      lock.unlock();
    }
  }

  /** Hands waiting messages to parked waiters, in arrival order of the waiters. Under the lock. */
  private List<Handoff> serveWaiters(long now) {
    List<Handoff> out = null;
    while (!waiters.isEmpty()) {
      Waiting w = waiters.peekFirst();
      if (w.waiter.isCancelled()) {
        waiters.pollFirst();
        continue;
      }
      StoredMessage message = nextLive(now);
      if (message == null) {
        break;
      }
      waiters.pollFirst();
      if (out == null) {
        out = new ArrayList<>(2);
      }
      out.add(new Handoff(w.waiter, deliver(message, w.consumerId, now)));
    }
    if (waiters.isEmpty() && scheduler.size() > 0) {
      available.signal();
    }
    return out;
  }

  private static void complete(List<Handoff> handoffs) {
    if (handoffs != null) {
      for (Handoff h : handoffs) {
        h.waiter.deliver(h.delivery);
      }
    }
  }

  /**
   * Runs one aging pass.
   *
   * @return the number of messages promoted
   */
  public int age() {
    lock.lock();
    try {
      int moved = scheduler.age();
      promotions += moved;
      return moved;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Reads a page of the dead-letter queue, oldest first.
   *
   * @param limit the page size; 0 or negative means 10, capped at 100
   * @param offset entries to skip; negative means 0
   * @return the page
   */
  public DlqPage inspectDlq(int limit, int offset) {
    int size = limit <= 0 ? 10 : Math.min(limit, 100);
    int skip = Math.max(offset, 0);
    lock.lock();
    try {
      List<DeadLetter> page = new ArrayList<>(Math.min(size, deadLetters.size()));
      Iterator<DeadLetter> it = deadLetters.iterator();
      for (int i = 0; i < skip && it.hasNext(); i++) {
        it.next();
      }
      while (page.size() < size && it.hasNext()) {
        page.add(it.next());
      }
      return new DlqPage(page, deadLetters.size());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns the ticker reading now, for the age of dead letters.
   *
   * @return the reading
   */
  public long nowNanos() {
    return ticker.nanos();
  }

  /**
   * Returns the counters.
   *
   * @return a consistent snapshot
   */
  public BrokerStats stats() {
    lock.lock();
    try {
      return new BrokerStats(
          submitted,
          deliveries,
          completed,
          nacks,
          leaseExpiries,
          deadLettered,
          replays,
          learned,
          scheduler.size(),
          inFlight.size(),
          promotions,
          scheduler.stats());
    } finally {
      lock.unlock();
    }
  }
}
