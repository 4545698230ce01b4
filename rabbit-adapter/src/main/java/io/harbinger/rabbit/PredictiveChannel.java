package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.CancelCallback;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.ConsumerShutdownSignalCallback;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.ReturnCallback;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wrapped channel: stamps every publish and times every delivery; forwards everything else.
 *
 * <p>Implementation notes. Publish: the three {@code basicPublish} overloads with a {@code byte[]}
 * body fill in the defaults ({@code mandatory} and {@code immediate} false, as the RabbitMQ
 * client's own channel does) and funnel into {@link StampingPublisher#publish}, which stamps the
 * caller's properties, picks the lane of a logical lanes queue and calls the delegate's overload
 * with all the parameters, so mandatory, immediate, confirms and transactions behave as without the
 * wrapper. The {@code ByteBuffer} overload of newer clients is not overridden: its default method
 * copies the body into an array and calls the {@code byte[]} overload, so such a publish is stamped
 * like any other, and the adapter compiles and runs against every client from 5.25 on. Consume: the
 * twenty {@code basicConsume} overloads fill in the defaults (consumer tag {@code ""}, {@code
 * noLocal} and {@code exclusive} false, no arguments) and turn a {@link DeliverCallback} and its
 * companions into a {@link Consumer} ({@link CallbackConsumer}), as the client does, and funnel
 * into the overload with all parameters: it consumes a logical lanes queue's lanes ({@link
 * LanesConsumerRegistry}), or wraps the consumer around the {@link DeliveryTracker} ({@link
 * TimedConsumer}) and calls the delegate's overload with all parameters; every other consumer
 * callback is forwarded unchanged (the rabbitmq-java-client {@code ObservationConsumer} pattern).
 * Settle: {@code basicAck}, {@code basicNack} and {@code basicReject} call the delegate first,
 * unchanged, and record the settlement only once it returned; on a channel with lanes consumers a
 * multiple acknowledgement or nack settles the deliveries the application was handed up to its tag
 * and none a lanes consumer holds ({@link MultipleSettlement}), serialised with the channel's other
 * multiple settlements. Prefetch: {@code basicQos} is recorded so that a consumer that defeats
 * reordering is reported by {@link PrefetchGuard}. Returns: a publish that may come back ({@code
 * mandatory} or {@code immediate}) is remembered ({@link ReturnedMessages}), and return listeners
 * are handed the caller's properties. Identity: when RabbitMQ closes the channel because the
 * stamped {@code user-id} is not the connection's user (406), the wrapper logs it once at ERROR and
 * every later publish fails with an {@link IOException} that names the user and the fix, instead of
 * the client's bare "channel is already closed". Automatic recovery: an {@code
 * AutorecoveringChannel} keeps its identity across recovery and re-registers the wrapped consumers
 * itself; the tracker forgets unsettled deliveries on shutdown because their tags are stale.
 *
 * <p>Thread safety: as the delegate; the wrapper's own state is concurrent and lock-free, except
 * {@link Requeues}, touched only on requeues and redeliveries, and the multiple settlements of a
 * channel with lanes consumers, sent one at a time.
 */
sealed class PredictiveChannel extends ForwardingChannel permits RecoverablePredictiveChannel {

  private static final Logger LOG = LoggerFactory.getLogger(PredictiveChannel.class);

  private final ChannelOptions options;
  private volatile String identityFailure;
  private final StampingPublisher publisher;
  private final DeliveryTracker tracker;
  private final PrefetchGuard prefetchGuard;
  private final LanesConsumerRegistry lanes;
  private volatile int consumerPrefetch;
  private volatile int channelPrefetch;
  private final Object multipleSettlements = new Object();

  /**
   * Wraps a channel.
   *
   * @param delegate the application's channel
   * @param options how to wrap it
   * @param prefetchGuard where consumer prefetch is checked
   */
  PredictiveChannel(Channel delegate, ChannelOptions options, PrefetchGuard prefetchGuard) {
    super(delegate);
    this.options = options;
    this.publisher = new StampingPublisher(options, brokerVersion(delegate));
    this.tracker = new DeliveryTracker(options, Requeues.SHARED);
    this.prefetchGuard = prefetchGuard;
    this.lanes = new LanesConsumerRegistry(delegate, options, tracker);
    delegate.addShutdownListener(this::onShutdown);
  }

  private static String brokerVersion(Channel channel) {
    var connection = channel.getConnection();
    Map<String, Object> server = connection == null ? null : connection.getServerProperties();
    Object version = server == null ? null : server.get("version");
    return version == null ? null : version.toString();
  }

  /**
   * Returns the options this channel was wrapped with.
   *
   * @return the options
   */
  ChannelOptions options() {
    return options;
  }

  DeliveryTracker tracker() {
    return tracker;
  }

  private void onShutdown(ShutdownSignalException cause) {
    tracker.clear();
    if (!(delegate instanceof Recoverable) || cause == null || cause.isInitiatedByApplication()) {
      lanes.stop();
    }
    if (cause != null
        && !cause.isInitiatedByApplication()
        && options.producerProperty() == ProducerProperty.USER_ID) {
      String reason = IdentityProbe.reasonOf(cause);
      if (reason.contains(IdentityProbe.REFUSAL) && identityFailure == null) {
        identityFailure = IdentityProbe.refusal(options.user(), reason);
        LOG.error("RabbitMQ closed a wrapped channel: {}", identityFailure);
      }
    }
  }

  private void checkIdentity() throws IOException {
    String failure = identityFailure;
    if (failure != null) {
      throw new IOException(failure);
    }
  }

  // Publish: every overload comes to StampingPublisher.publish.

  @Override
  public void basicPublish(
      String exchange, String routingKey, AMQP.BasicProperties props, byte[] body)
      throws IOException {
    basicPublish(exchange, routingKey, false, false, props, body);
  }

  @Override
  public void basicPublish(
      String exchange,
      String routingKey,
      boolean mandatory,
      AMQP.BasicProperties props,
      byte[] body)
      throws IOException {
    basicPublish(exchange, routingKey, mandatory, false, props, body);
  }

  @Override
  public void basicPublish(
      String exchange,
      String routingKey,
      boolean mandatory,
      boolean immediate,
      AMQP.BasicProperties props,
      byte[] body)
      throws IOException {
    checkIdentity();
    publisher.publish(delegate, exchange, routingKey, mandatory, immediate, props, body);
  }

  // Returns: listeners hear the caller's properties.

  @Override
  public ReturnListener addReturnListener(ReturnCallback callback) {
    if (callback == null) {
      return delegate.addReturnListener((ReturnCallback) null);
    }
    return delegate.addReturnListener(r -> callback.handle(publisher.returns().restore(r)));
  }

  @Override
  public void addReturnListener(ReturnListener listener) {
    delegate.addReturnListener(listener == null ? null : publisher.returns().wrap(listener));
  }

  @Override
  public boolean removeReturnListener(ReturnListener listener) {
    return listener != null
        && (delegate.removeReturnListener(publisher.returns().wrap(listener))
            || delegate.removeReturnListener(listener));
  }

  // Settle.

  @Override
  public void basicAck(long deliveryTag, boolean multiple) throws IOException {
    if (lanes.stale(deliveryTag, multiple)) {
      return;
    }
    if (multiple && lanes.any()) {
      settleHanded(deliveryTag, Settlement.ACK, false);
      return;
    }
    delegate.basicAck(deliveryTag, multiple);
    tracker.settle(deliveryTag, multiple, Settlement.ACK, false);
    lanes.settled(deliveryTag, multiple);
  }

  @Override
  public void basicNack(long deliveryTag, boolean multiple, boolean requeue) throws IOException {
    if (lanes.stale(deliveryTag, multiple)) {
      return;
    }
    if (multiple && lanes.any()) {
      settleHanded(deliveryTag, Settlement.NACK, requeue);
      return;
    }
    delegate.basicNack(deliveryTag, multiple, requeue);
    tracker.settle(deliveryTag, multiple, Settlement.NACK, requeue);
    lanes.settled(deliveryTag, multiple);
  }

  /**
   * Sends a multiple acknowledgement or nack on a channel with lanes consumers as settlements of
   * the deliveries the application was handed up to its tag ({@link MultipleSettlement}): as it
   * came when no lanes consumer holds a delivery up to the tag.
   */
  private void settleHanded(long deliveryTag, Settlement outcome, boolean requeue)
      throws IOException {
    synchronized (multipleSettlements) {
      long upTo = deliveryTag == 0 ? Long.MAX_VALUE : deliveryTag;
      NavigableSet<Long> handed = tracker.unsettledTags(upTo);
      long leaveAlone = lanes.lowestUnhanded(upTo, handed::contains);
      if (leaveAlone > upTo) {
        send(deliveryTag, true, outcome, requeue);
        return;
      }
      MultipleSettlement plan = MultipleSettlement.plan(handed, leaveAlone);
      if (plan.isEmpty()) {
        options.stats().increment(Counter.UNMATCHED_SETTLE);
        return;
      }
      if (plan.multipleTag() != 0) {
        send(plan.multipleTag(), true, outcome, requeue);
      }
      for (long tag : plan.singleTags()) {
        send(tag, false, outcome, requeue);
      }
    }
  }

  /** Sends one acknowledgement or nack and records it once the delegate accepted it. */
  private void send(long deliveryTag, boolean multiple, Settlement outcome, boolean requeue)
      throws IOException {
    if (outcome == Settlement.ACK) {
      delegate.basicAck(deliveryTag, multiple);
    } else {
      delegate.basicNack(deliveryTag, multiple, requeue);
    }
    tracker.settle(deliveryTag, multiple, outcome, requeue);
    lanes.settled(deliveryTag, multiple);
  }

  @Override
  public void basicReject(long deliveryTag, boolean requeue) throws IOException {
    if (lanes.stale(deliveryTag, false)) {
      return;
    }
    delegate.basicReject(deliveryTag, requeue);
    tracker.settle(deliveryTag, false, Settlement.REJECT, requeue);
    lanes.settled(deliveryTag, false);
  }

  @Override
  public AMQP.Basic.RecoverOk basicRecover() throws IOException {
    AMQP.Basic.RecoverOk ok = delegate.basicRecover();
    recovered();
    return ok;
  }

  @Override
  public AMQP.Basic.RecoverOk basicRecover(boolean requeue) throws IOException {
    AMQP.Basic.RecoverOk ok = delegate.basicRecover(requeue);
    recovered();
    return ok;
  }

  private void recovered() {
    tracker.recoverAll();
    lanes.recovered();
  }

  @Override
  public GetResponse basicGet(String queue, boolean autoAck) throws IOException {
    GetResponse response = delegate.basicGet(queue, autoAck);
    if (response != null && !autoAck) {
      DeliveryTracker.InFlight f =
          tracker.begin(response.getEnvelope(), response.getProps(), response.getBody(), false);
      tracker.handlerDone(f, true);
    }
    return response;
  }

  // Lifecycle.

  @Override
  public void close() throws IOException, TimeoutException {
    try {
      delegate.close();
    } finally {
      closed();
    }
  }

  @Override
  public void close(int closeCode, String closeMessage) throws IOException, TimeoutException {
    try {
      delegate.close(closeCode, closeMessage);
    } finally {
      closed();
    }
  }

  @Override
  public void abort() throws IOException {
    try {
      delegate.abort();
    } finally {
      closed();
    }
  }

  @Override
  public void abort(int closeCode, String closeMessage) throws IOException {
    try {
      delegate.abort(closeCode, closeMessage);
    } finally {
      closed();
    }
  }

  private void closed() {
    tracker.clear();
    lanes.stop();
  }

  // Prefetch and queue kinds.

  @Override
  public void basicQos(int prefetchCount) throws IOException {
    delegate.basicQos(prefetchCount);
    consumerPrefetch = prefetchCount;
  }

  @Override
  public void basicQos(int prefetchCount, boolean global) throws IOException {
    delegate.basicQos(prefetchCount, global);
    recordQos(prefetchCount, global);
  }

  @Override
  public void basicQos(int prefetchSize, int prefetchCount, boolean global) throws IOException {
    delegate.basicQos(prefetchSize, prefetchCount, global);
    recordQos(prefetchCount, global);
  }

  private void recordQos(int prefetchCount, boolean global) {
    if (global) {
      channelPrefetch = prefetchCount;
    } else {
      consumerPrefetch = prefetchCount;
    }
  }

  /** The prefetch a new consumer gets: the tighter of the consumer and channel limits, 0 none. */
  private int effectivePrefetch() {
    int c = consumerPrefetch;
    int g = channelPrefetch;
    return c == 0 ? g : g == 0 ? c : Math.min(c, g);
  }

  @Override
  public AMQP.Queue.DeclareOk queueDeclare(
      String queue,
      boolean durable,
      boolean exclusive,
      boolean autoDelete,
      Map<String, Object> arguments)
      throws IOException {
    AMQP.Queue.DeclareOk ok =
        delegate.queueDeclare(queue, durable, exclusive, autoDelete, arguments);
    prefetchGuard.declared(ok.getQueue(), hasPriorities(arguments));
    DeclaredQueues.SHARED.declared(ok.getQueue(), arguments);
    return ok;
  }

  @Override
  public void queueDeclareNoWait(
      String queue,
      boolean durable,
      boolean exclusive,
      boolean autoDelete,
      Map<String, Object> arguments)
      throws IOException {
    delegate.queueDeclareNoWait(queue, durable, exclusive, autoDelete, arguments);
    prefetchGuard.declared(queue, hasPriorities(arguments));
    DeclaredQueues.SHARED.declared(queue, arguments);
  }

  private static boolean hasPriorities(Map<String, Object> arguments) {
    return arguments != null && arguments.get("x-max-priority") != null;
  }

  @Override
  public void basicCancel(String consumerTag) throws IOException {
    if (!lanes.cancel(consumerTag)) {
      delegate.basicCancel(consumerTag);
    }
  }

  /**
   * Returns how many deliveries this channel's lanes consumers hold now.
   *
   * @return the count
   */
  int lanesHeld() {
    return lanes.held();
  }

  // Consume: every overload comes to the one with all parameters and a Consumer.

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      Consumer callback)
      throws IOException {
    LaneLayout layout = DeclaredLanes.SHARED.layout(queue);
    if (layout != null) {
      return lanes.consume(
          layout,
          autoAck,
          consumerTag,
          noLocal,
          exclusive,
          arguments,
          callback,
          effectivePrefetch());
    }
    if (prefetchGuard.check(queue, effectivePrefetch(), autoAck)) {
      options.stats().increment(Counter.PREFETCH_WARNING);
    }
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        callback == null ? null : new TimedConsumer(callback, tracker, autoAck));
  }

  @Override
  public String basicConsume(String queue, Consumer callback) throws IOException {
    return basicConsume(queue, false, "", false, false, null, callback);
  }

  @Override
  public String basicConsume(String queue, boolean autoAck, Consumer callback) throws IOException {
    return basicConsume(queue, autoAck, "", false, false, null, callback);
  }

  @Override
  public String basicConsume(
      String queue, boolean autoAck, Map<String, Object> arguments, Consumer callback)
      throws IOException {
    return basicConsume(queue, autoAck, "", false, false, arguments, callback);
  }

  @Override
  public String basicConsume(String queue, boolean autoAck, String consumerTag, Consumer callback)
      throws IOException {
    return basicConsume(queue, autoAck, consumerTag, false, false, null, callback);
  }

  @Override
  public String basicConsume(String queue, DeliverCallback deliver, CancelCallback cancel)
      throws IOException {
    return basicConsume(queue, false, "", false, false, null, CallbackConsumer.of(deliver, cancel));
  }

  @Override
  public String basicConsume(
      String queue, DeliverCallback deliver, ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue, false, "", false, false, null, CallbackConsumer.of(deliver, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      DeliverCallback deliver,
      CancelCallback cancel,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue, false, "", false, false, null, CallbackConsumer.of(deliver, cancel, shutdown));
  }

  @Override
  public String basicConsume(
      String queue, boolean autoAck, DeliverCallback deliver, CancelCallback cancel)
      throws IOException {
    return basicConsume(
        queue, autoAck, "", false, false, null, CallbackConsumer.of(deliver, cancel));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      DeliverCallback deliver,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue, autoAck, "", false, false, null, CallbackConsumer.of(deliver, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      DeliverCallback deliver,
      CancelCallback cancel,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue, autoAck, "", false, false, null, CallbackConsumer.of(deliver, cancel, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliver,
      CancelCallback cancel)
      throws IOException {
    return basicConsume(
        queue, autoAck, "", false, false, arguments, CallbackConsumer.of(deliver, cancel));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliver,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue, autoAck, "", false, false, arguments, CallbackConsumer.of(deliver, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliver,
      CancelCallback cancel,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue,
        autoAck,
        "",
        false,
        false,
        arguments,
        CallbackConsumer.of(deliver, cancel, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliver,
      CancelCallback cancel)
      throws IOException {
    return basicConsume(
        queue, autoAck, consumerTag, false, false, null, CallbackConsumer.of(deliver, cancel));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliver,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue, autoAck, consumerTag, false, false, null, CallbackConsumer.of(deliver, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliver,
      CancelCallback cancel,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue,
        autoAck,
        consumerTag,
        false,
        false,
        null,
        CallbackConsumer.of(deliver, cancel, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliver,
      CancelCallback cancel)
      throws IOException {
    return basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        CallbackConsumer.of(deliver, cancel));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliver,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        CallbackConsumer.of(deliver, shutdown));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliver,
      CancelCallback cancel,
      ConsumerShutdownSignalCallback shutdown)
      throws IOException {
    return basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        CallbackConsumer.of(deliver, cancel, shutdown));
  }
}
