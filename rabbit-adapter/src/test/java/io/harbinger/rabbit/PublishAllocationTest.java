package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.AMQConnection;
import com.rabbitmq.client.impl.ChannelN;
import com.rabbitmq.client.impl.ConsumerWorkService;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The allocation guard of the publish path: the bytes the wrapper's own work (key, route, clock,
 * stamped properties) allocates per publish, with a predictor tracking 10,000 keys. The JVM's
 * per-thread allocation counter is exact, so unlike a timing this is a deterministic figure, and
 * the test fails when the path allocates more than its budget.
 *
 * <p>The delegate is the RabbitMQ client's own channel class with its publish doing nothing (so
 * that the wrapper takes its path for the client's channels, and no socket or encoder adds noise):
 * each round compares the wrapped publish with the same delegate publishing, raw, the message as
 * the wrapper sends it. Rounds run after a warm-up, so that the JIT has compiled both paths, and
 * the smallest difference of a round counts.
 */
class PublishAllocationTest {

  /** Bytes a wrapped publish may allocate beyond the raw publish of the same message. */
  static final long BUDGET_BYTES = 64;

  private static final int KEYS = 10_000;
  private static final int WARM_UP = 200_000;
  private static final int ROUNDS = 5;
  private static final int PER_ROUND = 100_000;

  /** The client's channel class with a publish that keeps the last properties and sends nothing. */
  static final class NoOpChannelN extends ChannelN {
    volatile AMQP.BasicProperties last;

    private NoOpChannelN(AMQConnection connection) {
      super(connection, 1, (ConsumerWorkService) null);
    }

    @Override
    public void basicPublish(
        String exchange,
        String routingKey,
        boolean mandatory,
        boolean immediate,
        AMQP.BasicProperties props,
        byte[] body) {
      last = props;
    }

    /** Makes one without running the client's constructor, which needs a live connection. */
    static NoOpChannelN create() throws ReflectiveOperationException {
      Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (NoOpChannelN) ((sun.misc.Unsafe) f.get(null)).allocateInstance(NoOpChannelN.class);
    }
  }

  @Test
  void aWrappedPublish_allocatesAtMostItsBudget_beyondTheRawPublishOfTheSameMessage()
      throws Exception {
    HistogramPredictor predictor =
        new HistogramPredictor(PredictorConfig.defaults(), Ticker.SYSTEM, Mode.PREDICTIVE);
    for (int k = 0; k < KEYS; k++) {
      for (int i = 0; i < 25; i++) {
        predictor.observe(Keys.of("shop", "job-" + k), 1_000_000L * (1 + k % 50) + i);
      }
    }
    NoOpChannelN delegate = NoOpChannelN.create();
    StampingPublisher publisher =
        new StampingPublisher(ChannelOptions.builder("shop").router(predictor).build(), null);
    AMQP.BasicProperties props =
        new AMQP.BasicProperties.Builder()
            .contentType("application/json")
            .deliveryMode(2)
            .headers(Map.of("x-job-type", "job-17", "trace-id", "4bf92f3577b34da6"))
            .build();
    byte[] body = new byte[64];
    publisher.publish(delegate, "", "jobs", false, false, props, body);
    assertThat(delegate.last).isInstanceOf(StampedProperties.class);
    assertThat(delegate.last.getUserId()).isEqualTo("shop");
    assertThat(StampHeader.read(delegate.last.getHeaders(), 3).publishedAtMicros()).isPositive();
    Map<String, Object> headers = new HashMap<>(props.getHeaders());
    headers.put(
        HarbingerHeaders.STAMP,
        StampHeader.encodeInto(
            MessageStamper.epochMicros(Clock.systemUTC()), 0, "predictive", null));
    AMQP.BasicProperties sameMessage =
        props.builder().headers(headers).priority(2).userId("shop").build();

    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (int i = 0; i < WARM_UP; i++) {
      delegate.basicPublish("", "jobs", false, false, sameMessage, body);
      publisher.publish(delegate, "", "jobs", false, false, props, body);
    }
    long added = Long.MAX_VALUE;
    long wrapped = 0;
    long raw = 0;
    for (int round = 0; round < ROUNDS; round++) {
      long start = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < PER_ROUND; i++) {
        delegate.basicPublish("", "jobs", false, false, sameMessage, body);
      }
      long middle = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < PER_ROUND; i++) {
        publisher.publish(delegate, "", "jobs", false, false, props, body);
      }
      long end = threads.getCurrentThreadAllocatedBytes();
      long r = (middle - start) / PER_ROUND;
      long w = (end - middle) / PER_ROUND;
      if (w - r < added) {
        added = w - r;
        raw = r;
        wrapped = w;
      }
    }
    System.out.printf(
        "allocation per publish: raw (the same message) %d B, wrapped %d B, added %d B"
            + " (budget %d B)%n",
        raw, wrapped, added, BUDGET_BYTES);
    assertThat(added)
        .as("bytes a wrapped publish allocates beyond the raw publish of the same message")
        .isLessThanOrEqualTo(BUDGET_BYTES);
  }
}
