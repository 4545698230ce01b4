package io.harbinger.spring;

import com.rabbitmq.client.Channel;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.DeliveryTimer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.listener.support.ContainerUtils;
import org.springframework.aop.ProxyMethodInvocation;

/**
 * Listener-container advice that times every listener invocation and reports its duration through
 * Harbinger's report publisher, with the rules of a wrapped consumer ({@link DeliveryTimer}).
 *
 * <p>The auto-configuration puts it first in the advice chain of every listener container factory
 * ({@code @RabbitListener} methods, endpoints registered for {@code MessageListener} beans, and
 * containers made with the factory's {@code createListenerContainer()}), on the simple and the
 * direct container. A container built without a factory takes it with {@code
 * container.setAdviceChain(advice, ...)}. What is reported:
 *
 * <ul>
 *   <li>{@code AcknowledgeMode.AUTO}: a listener that returns is an ack, with the listener's time;
 *       one that throws is a nack, which teaches nothing, and counts as requeued unless the
 *       exception is an {@code AmqpRejectAndDontRequeueException} (or an {@code
 *       ImmediateAcknowledgeAmqpException});
 *   <li>{@code MANUAL}: the listener's channel records its own {@code basicAck}, {@code basicNack}
 *       and {@code basicReject}, from any thread; the report follows the settlement, with the time
 *       from listener start to whichever came last of return and settlement;
 *   <li>{@code NONE}: settled on delivery, reported when the listener returns;
 *   <li>batch listeners: not reported, and counted ({@link #untimedBatches()}): a batch's time
 *       belongs to no single key, and splitting it would teach made-up durations;
 *   <li>redeliveries this process did not requeue are reported once as censored;
 *   <li>deliveries of a lanes queue: left alone, because the container's channel, which chose them
 *       among the lanes, times and reports them ({@link LaneListeners}).
 * </ul>
 *
 * <p>Implementation notes. Spring AMQP's advice chain wraps {@code invokeListener(Channel, Object
 * data)}; the advice is shared by the containers of a factory, so a container's mode is found from
 * the queue the message came from ({@link ListenerAckModes}). Delivery tags are per channel: one
 * {@link DeliveryTimer} per container channel, forgotten when the channel shuts down. In MANUAL
 * mode the channel argument is replaced by {@link DeliveryTimer#recordingSettlements}, which
 * forwards every call unchanged; in the other modes the listener sees the container's channel
 * itself.
 *
 * <p>Thread-safe; never blocks a listener or its acknowledgement.
 */
public final class HarbingerListenerAdvice implements MethodInterceptor {

  static final int MAX_CHANNELS = 10_000;

  private final ChannelOptions options;
  private final ListenerAckModes ackModes;
  private final Map<Channel, Timed> channels = new ConcurrentHashMap<>();
  private final LongAdder untimedBatches = new LongAdder();
  private final LongAdder untimedChannels = new LongAdder();

  HarbingerListenerAdvice(ChannelOptions options, ListenerAckModes ackModes) {
    this.options = options;
    this.ackModes = ackModes;
  }

  /** One container channel: its timer and its recording view. */
  private record Timed(DeliveryTimer timer, Channel recording) {}

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Object[] args = invocation.getArguments();
    if (args.length != 2 || !(args[0] instanceof Channel channel)) {
      return invocation.proceed();
    }
    if (args[1] instanceof List<?>) {
      untimedBatches.increment();
      return invocation.proceed();
    }
    if (!(args[1] instanceof Message message)) {
      return invocation.proceed();
    }
    MessageProperties props = message.getMessageProperties();
    if (LaneListenerChannel.timesDeliveries(channel, props.getConsumerQueue())) {
      return invocation.proceed();
    }
    Timed timed = timedFor(channel);
    if (timed == null) {
      untimedChannels.increment();
      return invocation.proceed();
    }
    AcknowledgeMode mode = ackModes.modeOf(props.getConsumerQueue());
    long tag = props.getDeliveryTag();
    byte[] body = message.getBody();
    DeliveryTimer timer = timed.timer();
    DeliveryTimer.TimedDelivery delivery =
        timer.begin(
            tag,
            Boolean.TRUE.equals(props.getRedelivered()),
            props.getReceivedUserId(),
            props.getAppId(),
            props.getMessageId(),
            props.getHeaders(),
            body,
            mode == AcknowledgeMode.NONE);
    if (mode == AcknowledgeMode.MANUAL) {
      Object[] replaced = args.clone();
      replaced[0] = timed.recording();
      if (invocation instanceof ProxyMethodInvocation proxied) {
        proxied.setArguments(replaced);
      } else {
        args[0] = timed.recording();
      }
    }
    boolean succeeded = false;
    try {
      Object result = invocation.proceed();
      succeeded = true;
      return result;
    } catch (Throwable t) {
      if (mode == AcknowledgeMode.AUTO) {
        timer.nacked(tag, false, requeued(t));
      }
      throw t;
    } finally {
      if (succeeded && mode == AcknowledgeMode.AUTO) {
        timer.acked(tag, false);
      }
      timer.handlerDone(delivery, succeeded);
    }
  }

  /** Whether the container sends a failed delivery back to its queue, by Spring's default rule. */
  private static boolean requeued(Throwable t) {
    return !ContainerUtils.isAmqpReject(t) && !ContainerUtils.isImmediateAcknowledge(t);
  }

  private Timed timedFor(Channel channel) {
    Timed timed = channels.get(channel);
    if (timed != null || channels.size() >= MAX_CHANNELS) {
      return timed;
    }
    return channels.computeIfAbsent(
        channel,
        c -> {
          DeliveryTimer timer = DeliveryTimer.create(options);
          c.addShutdownListener(
              cause -> {
                channels.remove(c);
                timer.forgetUnsettled();
              });
          return new Timed(timer, timer.recordingSettlements(c));
        });
  }

  /**
   * Returns the batch-listener invocations that were not reported.
   *
   * @return the count
   */
  public long untimedBatches() {
    return untimedBatches.sum();
  }

  /**
   * Returns the deliveries not timed because more than {@value #MAX_CHANNELS} channels were
   * followed at once.
   *
   * @return the count
   */
  public long untimedChannels() {
    return untimedChannels.sum();
  }
}
