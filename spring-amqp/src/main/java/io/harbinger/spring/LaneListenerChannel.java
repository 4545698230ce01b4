package io.harbinger.spring;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.Lanes;
import io.harbinger.rabbit.PredictiveChannels;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import org.springframework.util.ClassUtils;

/**
 * The channel of a listener container that consumes a lanes queue: Spring's channel, except that a
 * consume of a lanes queue consumes every lane through a wrapped channel ({@link
 * PredictiveChannels}), which chooses the next delivery, times it and reports it.
 *
 * <p>What goes to the wrapped channel: {@code basicConsume} of a lanes queue, and for every
 * consumer {@code basicQos} (the lanes consumer's prefetch), {@code basicAck}, {@code basicNack},
 * {@code basicReject}, {@code basicCancel}, {@code basicRecover}, {@code close} and {@code abort}.
 * Everything else, publishes included, goes to Spring's channel unchanged, so a reply is stamped
 * once, by {@link HarbingerStamping}. The proxy implements the interfaces of Spring's channel
 * ({@code ChannelProxy}, and {@code PublisherCallbackChannel} when it is one), so the container
 * closes it as it closes its own.
 *
 * <p>Implementation notes. Spring AMQP's simple container acknowledges with {@code multiple} set. A
 * lanes consumer holds lanes' deliveries it has not handed over yet, and a multiple acknowledgement
 * on the channel would settle those too, before the listener saw them. So the deliveries handed to
 * the container's consumers are recorded, and a multiple settlement becomes one settlement per
 * recorded delivery up to its tag. A JDK proxy, as Spring's own channels are, keeps the forwarding
 * independent of the {@link Channel} interface's size.
 *
 * <p>Thread-safe: the recorded tags and lanes queues are concurrent sets; settlements may come from
 * any thread.
 */
final class LaneListenerChannel implements InvocationHandler {

  private final Channel target;
  private final Channel lanes;
  private final Set<String> laneQueues = ConcurrentHashMap.newKeySet();
  private final ConcurrentSkipListSet<Long> unsettled = new ConcurrentSkipListSet<>();

  private LaneListenerChannel(Channel target, ChannelOptions options) {
    this.target = target;
    this.lanes = PredictiveChannels.wrap(target, options);
  }

  /**
   * Returns the lanes-consuming view of a listener container's channel.
   *
   * @param channel Spring's channel
   * @param options the options of Harbinger's wrapped channels
   * @return a channel with the interfaces of {@code channel}
   */
  static Channel wrap(Channel channel, ChannelOptions options) {
    Set<Class<?>> interfaces =
        new LinkedHashSet<>(ClassUtils.getAllInterfacesForClassAsSet(channel.getClass()));
    interfaces.add(Channel.class);
    return (Channel)
        Proxy.newProxyInstance(
            LaneListenerChannel.class.getClassLoader(),
            interfaces.toArray(Class<?>[]::new),
            new LaneListenerChannel(channel, options));
  }

  /**
   * Returns whether a channel times and reports a queue's deliveries itself: it is a lanes view
   * consuming that lanes queue.
   *
   * @param channel a listener's channel
   * @param queue the queue a delivery came from, or null
   * @return true when the listener advice must leave the delivery alone
   */
  static boolean timesDeliveries(Channel channel, String queue) {
    return queue != null
        && Proxy.isProxyClass(channel.getClass())
        && Proxy.getInvocationHandler(channel) instanceof LaneListenerChannel view
        && view.laneQueues.contains(queue);
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      case "toString" -> "Harbinger lanes view of " + target;
      case "basicConsume" -> consume(method, args);
      case "basicAck" -> {
        settle(args, (tag, multiple) -> lanes.basicAck(tag, multiple));
        yield null;
      }
      case "basicNack" -> {
        boolean requeue = (Boolean) args[2];
        settle(args, (tag, multiple) -> lanes.basicNack(tag, multiple, requeue));
        yield null;
      }
      case "basicReject" -> {
        unsettled.remove((Long) args[0]);
        yield call(lanes, method, args);
      }
      case "basicRecover" -> {
        unsettled.clear();
        yield call(lanes, method, args);
      }
      case "basicQos", "basicCancel", "close", "abort" -> call(lanes, method, args);
      default -> call(target, method, args);
    };
  }

  /** Consumes a lanes queue's lanes, or another queue on Spring's channel; records hand-offs. */
  private Object consume(Method method, Object[] args) throws Throwable {
    Object[] recorded = args.clone();
    boolean autoAck = args.length > 1 && args[1] instanceof Boolean b && b;
    for (int i = 0; i < recorded.length; i++) {
      if (recorded[i] instanceof Consumer c) {
        recorded[i] = new Recording(c, autoAck);
      }
    }
    String queue = args[0] instanceof String q ? q : null;
    if (queue != null && Lanes.layoutOf(queue) != null) {
      Object tag = call(lanes, method, recorded);
      laneQueues.add(queue);
      return tag;
    }
    return call(target, method, recorded);
  }

  /** A settlement of one tag, or of every tag up to it. */
  @FunctionalInterface
  private interface Settle {
    void apply(long tag, boolean multiple) throws IOException;
  }

  /**
   * Settles one delivery, or each recorded delivery up to a tag in place of a multiple settlement
   * (a multiple settlement whose tag was not recorded here goes as it came).
   */
  private void settle(Object[] args, Settle settle) throws IOException {
    long tag = (Long) args[0];
    boolean multiple = (Boolean) args[1];
    if (!multiple || !unsettled.contains(tag)) {
      unsettled.remove(tag);
      settle.apply(tag, multiple);
      return;
    }
    List<Long> tags = new ArrayList<>(unsettled.headSet(tag, true));
    for (long t : tags) {
      unsettled.remove(t);
      settle.apply(t, false);
    }
  }

  private static Object call(Channel channel, Method method, Object[] args) throws Throwable {
    Method m =
        method.getDeclaringClass().isInstance(channel)
            ? method
            : Channel.class.getMethod(method.getName(), method.getParameterTypes());
    try {
      return m.invoke(channel, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Forwards every callback to the container's consumer; records each delivery to settle. */
  private final class Recording implements Consumer {
    private final Consumer consumer;
    private final boolean autoAck;

    Recording(Consumer consumer, boolean autoAck) {
      this.consumer = consumer;
      this.autoAck = autoAck;
    }

    @Override
    public void handleConsumeOk(String consumerTag) {
      consumer.handleConsumeOk(consumerTag);
    }

    @Override
    public void handleCancelOk(String consumerTag) {
      consumer.handleCancelOk(consumerTag);
    }

    @Override
    public void handleCancel(String consumerTag) throws IOException {
      consumer.handleCancel(consumerTag);
    }

    @Override
    public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
      unsettled.clear();
      consumer.handleShutdownSignal(consumerTag, sig);
    }

    @Override
    public void handleRecoverOk(String consumerTag) {
      consumer.handleRecoverOk(consumerTag);
    }

    @Override
    public void handleDelivery(
        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
        throws IOException {
      if (!autoAck) {
        unsettled.add(envelope.getDeliveryTag());
      }
      consumer.handleDelivery(consumerTag, envelope, properties, body);
    }
  }
}
