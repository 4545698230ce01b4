package io.harbinger.spring;

import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.Lanes;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.context.SmartLifecycle;

/**
 * Makes the listener containers that consume a lanes queue consume every lane: before the
 * containers start, each simple container with a lanes queue among its queues gets a {@link
 * LanesConnectionFactory} on its own connection factory, and any other kind of container with one
 * fails the start, naming the container and the fix.
 *
 * <p>Implementation notes. It is a {@link SmartLifecycle} of the first phase, started before Spring
 * AMQP's containers and listener endpoint registry, so it sees the {@code @RabbitListener}
 * containers after they are made (once every singleton is) and before any consumes. A container's
 * queues are read once, then: queues added to a running container later are consumed as plain
 * queues.
 *
 * <p>Thread-safe for the container lifecycle's calls, which Spring serialises.
 */
final class LaneListeners implements SmartLifecycle {

  private final Supplier<List<AbstractMessageListenerContainer>> containers;
  private final ChannelOptions options;
  private volatile boolean running;

  LaneListeners(
      Supplier<List<AbstractMessageListenerContainer>> containers, ChannelOptions options) {
    this.containers = containers;
    this.options = options;
  }

  @Override
  public void start() {
    for (AbstractMessageListenerContainer c : containers.get()) {
      install(c, options);
    }
    running = true;
  }

  /**
   * Gives a container that consumes a lanes queue the lanes view of its connection factory.
   *
   * @param container the container, not started
   * @param options the options of Harbinger's wrapped channels
   * @throws IllegalStateException when a container other than a simple one consumes a lanes queue
   */
  static void install(AbstractMessageListenerContainer container, ChannelOptions options) {
    List<String> lanes =
        Arrays.stream(container.getQueueNames()).filter(q -> Lanes.layoutOf(q) != null).toList();
    if (lanes.isEmpty() || container.getConnectionFactory() instanceof LanesConnectionFactory) {
      return;
    }
    if (!(container instanceof SimpleMessageListenerContainer)) {
      throw new IllegalStateException(
          "listener container '"
              + container.getListenerId()
              + "' ("
              + container.getClass().getSimpleName()
              + ") consumes the lanes queue(s) "
              + lanes
              + ", and Harbinger consumes lanes with the simple container only: use a"
              + " SimpleRabbitListenerContainerFactory for it (spring.rabbitmq.listener.type=simple,"
              + " the default, or @RabbitListener(containerFactory = ...))");
    }
    container.setConnectionFactory(
        new LanesConnectionFactory(container.getConnectionFactory(), options));
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return Integer.MIN_VALUE;
  }
}
