package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.MessageStamper;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.ReportPublisher;
import io.harbinger.rabbit.ReportSink;
import io.harbinger.rabbit.Stamp;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CPU and allocation a wrapped consumer adds to one delivery: the same delivery handed to the
 * same no-op handler and acknowledged, through a no-op channel, raw and wrapped. The wrapped path
 * reads the stamp, times the handler, builds the duration report at the acknowledgement and hands
 * it to the report sink: {@code sink=none} discards it, {@code sink=publisher} gives it to a real
 * {@link ReportPublisher}, which buffers it and publishes batches to the local RabbitMQ ({@code
 * RABBITMQ_URI}, default {@code amqp://guest:guest@127.0.0.1:5672/%2F}) on its own thread.
 *
 * <p>The delivery tag is the same every time (each delivery is settled before the next), so the
 * harness allocates nothing of its own. Run with {@code java -jar
 * experiments/benchmarks/target/benchmarks.jar DeliveryOverheadBenchmark -prof gc}.
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class DeliveryOverheadBenchmark {

  /** Where the wrapped consumer's reports go. */
  @Param({"none", "publisher"})
  public String sink;

  private Consumer application;
  private Consumer wrappedDelivery;
  private Channel raw;
  private Channel wrapped;
  private Envelope envelope;
  private AMQP.BasicProperties props;
  private byte[] body;
  private ReportPublisher publisher;

  /** The consumer the no-op channel was given by the last basicConsume. */
  private Consumer registered;

  /** Builds the no-op channel, both consumers and the stamped message. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    raw =
        (Channel)
            Proxy.newProxyInstance(
                Channel.class.getClassLoader(),
                new Class<?>[] {Channel.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("basicConsume")) {
                    for (Object a : args) {
                      if (a instanceof Consumer c) {
                        registered = c;
                      }
                    }
                    return "ctag";
                  }
                  if (method.getName().equals("getChannelNumber")) {
                    return 1;
                  }
                  if (method.getReturnType() == boolean.class) {
                    return false;
                  }
                  return null;
                });
    ReportSink reports = ReportSink.NO_OP;
    if (sink.equals("publisher")) {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(
          System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"));
      publisher =
          ReportPublisher.builder(factory)
              .exchange("harbinger.bench.reports." + UUID.randomUUID().toString().substring(0, 8))
              .start();
      reports = publisher;
    }
    application = new DefaultConsumer(raw);
    wrapped = PredictiveChannels.wrap(raw, ChannelOptions.builder("shop").reports(reports).build());
    wrapped.basicConsume("jobs", false, application);
    wrappedDelivery = registered;
    envelope = new Envelope(1, false, "", "jobs");
    // As a wrapped channel sends it, and RabbitMQ delivers it: a byte array of the stamp's text.
    byte[] stamp =
        Stamp.headerValue(MessageStamper.epochMicros(Clock.systemUTC()), 0, "predictive")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    props =
        new AMQP.BasicProperties.Builder()
            .contentType("application/json")
            .userId("shop")
            .priority(2)
            .headers(Map.of("x-job-type", "reserve", HarbingerHeaders.STAMP, stamp))
            .build();
    body = new byte[256];
  }

  /** Closes the publisher and its connection. */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (publisher != null) {
      publisher.close();
    }
  }

  /** The delivery handed to the handler and acknowledged, without the wrapper. */
  @Benchmark
  public void raw() throws IOException {
    application.handleDelivery("ctag", envelope, props, body);
    raw.basicAck(1, false);
  }

  /** The same delivery through the wrapped consumer and the wrapped channel's acknowledgement. */
  @Benchmark
  public void wrapped() throws IOException {
    wrappedDelivery.handleDelivery("ctag", envelope, props, body);
    wrapped.basicAck(1, false);
  }
}
