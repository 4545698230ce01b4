package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.CancelCallback;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.ConsumerShutdownSignalCallback;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.ReturnCallback;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.WriteListener;
import io.harbinger.proto.v1.Outcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wrapped channel: stamps every publish and times every delivery; forwards everything else.
 *
 * <p>Implementation notes. Publish: all four {@code basicPublish} overloads replace the caller's
 * properties with {@link PublishStamper#stamp} and call the same overload of the delegate, so
 * mandatory, immediate, write listeners, confirms and transactions behave as without the wrapper.
 * Consume: all twenty {@code basicConsume} overloads wrap the {@link Consumer} or {@link
 * DeliverCallback} around a {@link DeliveryTracker} and call the same overload of the delegate;
 * every other consumer callback is forwarded unchanged (the rabbitmq-java-client {@code
 * ObservationConsumer} pattern). Settle: {@code basicAck}, {@code basicNack} and {@code
 * basicReject} call the delegate first, unchanged, and record the settlement only once it returned.
 * Prefetch: {@code basicQos} is recorded so that a consumer that defeats reordering is reported by
 * {@link PrefetchGuard}. Returns: a publish that may come back ({@code mandatory} or {@code
 * immediate}) is remembered by {@link ReturnedMessages}, and return listeners are handed the
 * caller's properties. Identity: when RabbitMQ closes the channel because the stamped {@code
 * user-id} is not the connection's user (406), the wrapper logs it once at ERROR and every later
 * publish fails with an {@link IOException} that names the user and the fix, instead of the
 * client's bare "channel is already closed". Automatic recovery: an {@code AutorecoveringChannel}
 * keeps its identity across recovery and re-registers the wrapped consumers itself; the tracker
 * forgets unsettled deliveries on shutdown because their tags are stale.
 *
 * <p>Thread safety: as the delegate; the wrapper's own state is concurrent and lock-free, except
 * {@link Requeues}, touched only on requeues and redeliveries.
 */
sealed class PredictiveChannel extends ForwardingChannel permits RecoverablePredictiveChannel {

  private static final Logger LOG = LoggerFactory.getLogger(PredictiveChannel.class);

  private final ChannelOptions options;
  private final ReturnedMessages returns = new ReturnedMessages(1024);
  private volatile String identityFailure;
  private final PublishStamper stamper;
  private final DeliveryTracker tracker;
  private final PrefetchGuard prefetchGuard;
  private volatile int consumerPrefetch;
  private volatile int channelPrefetch;
  private final Map<String, LanesConsumption> lanesConsumers = new ConcurrentHashMap<>();

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
    this.stamper = new PublishStamper(options, brokerVersion(delegate));
    this.tracker = new DeliveryTracker(options, Requeues.SHARED);
    this.prefetchGuard = prefetchGuard;
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
    if (!(delegate instanceof com.rabbitmq.client.Recoverable)
        || cause == null
        || cause.isInitiatedByApplication()) {
      stopLanes();
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

  // Publish.

  @Override
  public void basicPublish(
      String exchange, String routingKey, AMQP.BasicProperties props, byte[] body)
      throws IOException {
    checkIdentity();
    LaneLayout lanes = lanesOf(exchange, routingKey);
    if (lanes != null) {
      PublishStamper.LanePublish p = stamper.stampLane(lanes, props, length(body));
      delegate.basicPublish(exchange, p.lane(), p.properties(), body);
      return;
    }
    delegate.basicPublish(
        exchange, routingKey, stamper.stamp(exchange, routingKey, props, length(body)), body);
  }

  @Override
  public void basicPublish(
      String exchange,
      String routingKey,
      boolean mandatory,
      AMQP.BasicProperties props,
      byte[] body)
      throws IOException {
    checkIdentity();
    LaneLayout lanes = lanesOf(exchange, routingKey);
    if (lanes != null) {
      PublishStamper.LanePublish p = stamper.stampLane(lanes, props, length(body));
      if (mandatory) {
        returns.remember(exchange, p.lane(), length(body), p.properties(), props);
      }
      delegate.basicPublish(exchange, p.lane(), mandatory, p.properties(), body);
      return;
    }
    AMQP.BasicProperties stamped = stamper.stamp(exchange, routingKey, props, length(body));
    if (mandatory) {
      returns.remember(exchange, routingKey, length(body), stamped, props);
    }
    delegate.basicPublish(exchange, routingKey, mandatory, stamped, body);
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
    LaneLayout lanes = lanesOf(exchange, routingKey);
    if (lanes != null) {
      PublishStamper.LanePublish p = stamper.stampLane(lanes, props, length(body));
      if (mandatory || immediate) {
        returns.remember(exchange, p.lane(), length(body), p.properties(), props);
      }
      delegate.basicPublish(exchange, p.lane(), mandatory, immediate, p.properties(), body);
      return;
    }
    AMQP.BasicProperties stamped = stamper.stamp(exchange, routingKey, props, length(body));
    if (mandatory || immediate) {
      returns.remember(exchange, routingKey, length(body), stamped, props);
    }
    delegate.basicPublish(exchange, routingKey, mandatory, immediate, stamped, body);
  }

  @Override
  public void basicPublish(
      String exchange,
      String routingKey,
      boolean mandatory,
      boolean immediate,
      AMQP.BasicProperties props,
      ByteBuffer body,
      WriteListener writeListener)
      throws IOException {
    checkIdentity();
    long length = body == null ? 0 : body.remaining();
    LaneLayout lanes = lanesOf(exchange, routingKey);
    if (lanes != null) {
      PublishStamper.LanePublish p = stamper.stampLane(lanes, props, length);
      if (mandatory || immediate) {
        returns.remember(exchange, p.lane(), length, p.properties(), props);
      }
      delegate.basicPublish(
          exchange, p.lane(), mandatory, immediate, p.properties(), body, writeListener);
      return;
    }
    AMQP.BasicProperties stamped = stamper.stamp(exchange, routingKey, props, length);
    if (mandatory || immediate) {
      returns.remember(exchange, routingKey, length, stamped, props);
    }
    delegate.basicPublish(exchange, routingKey, mandatory, immediate, stamped, body, writeListener);
  }

  // Returns: listeners hear the caller's properties.

  @Override
  public ReturnListener addReturnListener(ReturnCallback callback) {
    if (callback == null) {
      return delegate.addReturnListener((ReturnCallback) null);
    }
    return delegate.addReturnListener(r -> callback.handle(returns.restore(r)));
  }

  @Override
  public void addReturnListener(ReturnListener listener) {
    delegate.addReturnListener(listener == null ? null : returns.wrap(listener));
  }

  @Override
  public boolean removeReturnListener(ReturnListener listener) {
    return listener != null
        && (delegate.removeReturnListener(returns.wrap(listener))
            || delegate.removeReturnListener(listener));
  }

  private static LaneLayout lanesOf(String exchange, String routingKey) {
    return exchange == null || exchange.isEmpty() ? DeclaredLanes.SHARED.layout(routingKey) : null;
  }

  private static long length(byte[] body) {
    return body == null ? 0 : body.length;
  }

  // Settle.

  @Override
  public void basicAck(long deliveryTag, boolean multiple) throws IOException {
    if (staleLanes(deliveryTag, multiple)) {
      return;
    }
    delegate.basicAck(deliveryTag, multiple);
    tracker.settle(deliveryTag, multiple, Outcome.OUTCOME_ACK, false);
    settledLanes(deliveryTag, multiple);
  }

  @Override
  public void basicNack(long deliveryTag, boolean multiple, boolean requeue) throws IOException {
    if (staleLanes(deliveryTag, multiple)) {
      return;
    }
    delegate.basicNack(deliveryTag, multiple, requeue);
    tracker.settle(deliveryTag, multiple, Outcome.OUTCOME_NACK, requeue);
    settledLanes(deliveryTag, multiple);
  }

  @Override
  public void basicReject(long deliveryTag, boolean requeue) throws IOException {
    if (staleLanes(deliveryTag, false)) {
      return;
    }
    delegate.basicReject(deliveryTag, requeue);
    tracker.settle(deliveryTag, false, Outcome.OUTCOME_REJECT, requeue);
    settledLanes(deliveryTag, false);
  }

  /** Whether a pulling lanes consumer handed these tags before the channel shut down. */
  private boolean staleLanes(long deliveryTag, boolean multiple) {
    if (!lanesConsumers.isEmpty()) {
      for (LanesConsumption c : lanesConsumers.values()) {
        if (c.stale(deliveryTag, multiple)) {
          return true;
        }
      }
    }
    return false;
  }

  private void settledLanes(long deliveryTag, boolean multiple) {
    if (!lanesConsumers.isEmpty()) {
      for (LanesConsumption c : lanesConsumers.values()) {
        c.settled(deliveryTag, multiple);
      }
    }
  }

  @Override
  public AMQP.Basic.RecoverOk basicRecover() throws IOException {
    AMQP.Basic.RecoverOk ok = delegate.basicRecover();
    tracker.recoverAll();
    lanesConsumers.values().forEach(LanesConsumption::recovered);
    return ok;
  }

  @Override
  public AMQP.Basic.RecoverOk basicRecover(boolean requeue) throws IOException {
    AMQP.Basic.RecoverOk ok = delegate.basicRecover(requeue);
    tracker.recoverAll();
    lanesConsumers.values().forEach(LanesConsumption::recovered);
    return ok;
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
      tracker.clear();
      stopLanes();
    }
  }

  @Override
  public void close(int closeCode, String closeMessage) throws IOException, TimeoutException {
    try {
      delegate.close(closeCode, closeMessage);
    } finally {
      tracker.clear();
      stopLanes();
    }
  }

  @Override
  public void abort() throws IOException {
    try {
      delegate.abort();
    } finally {
      tracker.clear();
      stopLanes();
    }
  }

  @Override
  public void abort(int closeCode, String closeMessage) throws IOException {
    try {
      delegate.abort(closeCode, closeMessage);
    } finally {
      tracker.clear();
      stopLanes();
    }
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

  private void checkPrefetch(String queue, boolean autoAck) {
    int c = consumerPrefetch;
    int g = channelPrefetch;
    int effective = c == 0 ? g : g == 0 ? c : Math.min(c, g);
    if (prefetchGuard.check(queue, effective, autoAck)) {
      options.stats().increment(Counter.PREFETCH_WARNING);
    }
  }

  // Lanes: a consumer of a logical lanes queue consumes every lane.

  private String consumeLanes(
      LaneLayout lanes,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      Consumer callback)
      throws IOException {
    if (callback == null) {
      throw new NullPointerException("callback");
    }
    if (consumerTag != null && lanesConsumers.containsKey(consumerTag)) {
      throw new IllegalArgumentException(
          "consumer tag '" + consumerTag + "' is already used on this channel");
    }
    int c = consumerPrefetch;
    int g = channelPrefetch;
    int prefetch = c == 0 ? g : g == 0 ? c : Math.min(c, g);
    LanesConsumption.Factory factory =
        options.lanes().fetch() == LaneFetch.PULL && (autoAck || prefetch > 0)
            ? PullingLanesConsumer::new
            : LanesConsumer::new;
    LanesConsumption consumer =
        factory.create(
            delegate,
            lanes,
            options,
            new TimedConsumer(callback, tracker, autoAck),
            consumerTag,
            autoAck,
            prefetch);
    lanesConsumers.put(consumer.tag(), consumer);
    try {
      return consumer.start(noLocal, exclusive, arguments);
    } catch (IOException | RuntimeException e) {
      lanesConsumers.remove(consumer.tag());
      throw e;
    }
  }

  @Override
  public void basicCancel(String consumerTag) throws IOException {
    LanesConsumption lanes = consumerTag == null ? null : lanesConsumers.remove(consumerTag);
    if (lanes == null) {
      delegate.basicCancel(consumerTag);
      return;
    }
    lanes.cancel();
  }

  private void stopLanes() {
    for (LanesConsumption c : lanesConsumers.values()) {
      c.stop();
    }
    lanesConsumers.clear();
  }

  /**
   * Returns how many deliveries this channel's lanes consumers hold now.
   *
   * @return the count
   */
  int lanesHeld() {
    int held = 0;
    for (LanesConsumption c : lanesConsumers.values()) {
      held += c.held();
    }
    return held;
  }

  // Consume: every overload wraps its callback and calls the same overload of the delegate.

  private Consumer wrap(Consumer callback, boolean autoAck) {
    return callback == null ? null : new TimedConsumer(callback, tracker, autoAck);
  }

  private DeliverCallback wrap(DeliverCallback callback, boolean autoAck) {
    if (callback == null) {
      return null;
    }
    return (consumerTag, delivery) -> {
      Envelope envelope = delivery.getEnvelope();
      byte[] body = delivery.getBody();
      DeliveryTracker.InFlight f = tracker.begin(envelope, delivery.getProperties(), body, autoAck);
      boolean succeeded = false;
      try {
        callback.handle(consumerTag, delivery);
        succeeded = true;
      } finally {
        tracker.handlerDone(f, succeeded);
      }
    };
  }

  @Override
  public String basicConsume(String queue, Consumer callback) throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(lanes, false, "", false, false, null, callback);
    }
    checkPrefetch(queue, false);
    return delegate.basicConsume(queue, wrap(callback, false));
  }

  @Override
  public String basicConsume(
      String queue, DeliverCallback deliverCallback, CancelCallback cancelCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          false,
          "",
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, cancelCallback, null));
    }
    checkPrefetch(queue, false);
    return delegate.basicConsume(queue, wrap(deliverCallback, false), cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          false,
          "",
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, null, shutdownSignalCallback));
    }
    checkPrefetch(queue, false);
    return delegate.basicConsume(queue, wrap(deliverCallback, false), shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          false,
          "",
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, cancelCallback, shutdownSignalCallback));
    }
    checkPrefetch(queue, false);
    return delegate.basicConsume(
        queue, wrap(deliverCallback, false), cancelCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(String queue, boolean autoAck, Consumer callback) throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(lanes, autoAck, "", false, false, null, callback);
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(queue, autoAck, wrap(callback, autoAck));
  }

  @Override
  public String basicConsume(
      String queue, boolean autoAck, DeliverCallback deliverCallback, CancelCallback cancelCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          "",
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, cancelCallback, null));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(queue, autoAck, wrap(deliverCallback, autoAck), cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          "",
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, null, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue, autoAck, wrap(deliverCallback, autoAck), shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          "",
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, cancelCallback, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue, autoAck, wrap(deliverCallback, autoAck), cancelCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue, boolean autoAck, Map<String, Object> arguments, Consumer callback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(lanes, autoAck, "", false, false, arguments, callback);
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(queue, autoAck, arguments, wrap(callback, autoAck));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          "",
          false,
          false,
          arguments,
          CallbackConsumer.of(deliverCallback, cancelCallback, null));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue, autoAck, arguments, wrap(deliverCallback, autoAck), cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          "",
          false,
          false,
          arguments,
          CallbackConsumer.of(deliverCallback, null, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue, autoAck, arguments, wrap(deliverCallback, autoAck), shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          "",
          false,
          false,
          arguments,
          CallbackConsumer.of(deliverCallback, cancelCallback, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue,
        autoAck,
        arguments,
        wrap(deliverCallback, autoAck),
        cancelCallback,
        shutdownSignalCallback);
  }

  @Override
  public String basicConsume(String queue, boolean autoAck, String consumerTag, Consumer callback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(lanes, autoAck, consumerTag, false, false, null, callback);
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(queue, autoAck, consumerTag, wrap(callback, autoAck));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          consumerTag,
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, cancelCallback, null));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue, autoAck, consumerTag, wrap(deliverCallback, autoAck), cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          consumerTag,
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, null, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue, autoAck, consumerTag, wrap(deliverCallback, autoAck), shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          consumerTag,
          false,
          false,
          null,
          CallbackConsumer.of(deliverCallback, cancelCallback, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        wrap(deliverCallback, autoAck),
        cancelCallback,
        shutdownSignalCallback);
  }

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
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(lanes, autoAck, consumerTag, noLocal, exclusive, arguments, callback);
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue, autoAck, consumerTag, noLocal, exclusive, arguments, wrap(callback, autoAck));
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          consumerTag,
          noLocal,
          exclusive,
          arguments,
          CallbackConsumer.of(deliverCallback, cancelCallback, null));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        wrap(deliverCallback, autoAck),
        cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          consumerTag,
          noLocal,
          exclusive,
          arguments,
          CallbackConsumer.of(deliverCallback, null, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        wrap(deliverCallback, autoAck),
        shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    LaneLayout lanes = DeclaredLanes.SHARED.layout(queue);
    if (lanes != null) {
      return consumeLanes(
          lanes,
          autoAck,
          consumerTag,
          noLocal,
          exclusive,
          arguments,
          CallbackConsumer.of(deliverCallback, cancelCallback, shutdownSignalCallback));
    }
    checkPrefetch(queue, autoAck);
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        wrap(deliverCallback, autoAck),
        cancelCallback,
        shutdownSignalCallback);
  }
}
