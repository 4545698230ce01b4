package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.MessageStamper;
import io.harbinger.rabbit.PredictiveChannels;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CPU a wrapped channel adds to one publish: the same publish through a no-op channel, raw and
 * wrapped, with an in-process predictor that has learned the message's key.
 *
 * <p>The difference {@code wrapped - raw} is the wrapper's cost: key lookup, one predictor lookup
 * (the predictor tracks 10,000 keys), one clock read and the stamped properties ({@code
 * wrappedLanes}: and the lane's name). Run with {@code java -jar
 * experiments/benchmarks/target/benchmarks.jar PublishOverheadBenchmark}; add {@code -prof gc} for
 * allocation per publish.
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PublishOverheadBenchmark {

  private Channel raw;
  private Channel wrapped;
  private Channel wrappedFixed;
  private MessageStamper stamper;
  private HistogramPredictor predictor;
  private String key;
  private AMQP.BasicProperties props;
  private byte[] body;

  /** Captures the last published properties so the publish cannot be optimised away. */
  static volatile Object sink;

  /** Builds the no-op channel, the trained predictor and the message. */
  @Setup
  public void setUp() {
    raw =
        (Channel)
            Proxy.newProxyInstance(
                Channel.class.getClassLoader(),
                new Class<?>[] {Channel.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("basicPublish")) {
                    sink = args[2];
                    return null;
                  }
                  if (method.getReturnType() == boolean.class) {
                    return false;
                  }
                  return null;
                });
    predictor =
        new HistogramPredictor(
            PredictorConfig.defaults(), Ticker.SYSTEM, io.harbinger.predictor.Mode.PREDICTIVE);
    for (String user : new String[] {"shop", "guest"}) {
      for (int i = 0; i < 300; i++) {
        predictor.observe(Keys.of(user, "reserve"), 2_000_000 + i);
        predictor.observe(Keys.of(user, "export"), 2_000_000_000L + i);
        predictor.observe(Keys.of(user, "mail"), 40_000_000 + i);
      }
    }
    // The predictor tracks 10,000 keys, as a busy sidecar or producer does.
    for (int k = 0; k < 10_000; k++) {
      for (int i = 0; i < 25; i++) {
        predictor.observe(Keys.of("others", "job-" + k), 1_000_000L * (1 + k % 50) + i);
      }
    }
    wrapped =
        PredictiveChannels.wrap(raw, ChannelOptions.builder("shop").router(predictor).build());
    io.harbinger.predictor.Prediction fixed =
        new io.harbinger.predictor.Prediction(
            0,
            0,
            io.harbinger.predictor.Outcome.PREDICTED,
            2e6,
            io.harbinger.predictor.Mode.PREDICTIVE);
    wrappedFixed =
        PredictiveChannels.wrap(
            raw,
            ChannelOptions.builder("shop")
                .router(
                    new io.harbinger.predictor.Router() {
                      @Override
                      public io.harbinger.predictor.Prediction route(String k) {
                        return fixed;
                      }

                      @Override
                      public int levels() {
                        return 3;
                      }
                    })
                .build());
    stamper = MessageStamper.create(ChannelOptions.builder("shop").router(predictor).build(), null);
    key = Keys.of("shop", "reserve");
    props =
        new AMQP.BasicProperties.Builder()
            .contentType("application/json")
            .deliveryMode(2)
            .headers(Map.of("x-job-type", "reserve", "trace-id", "4bf92f3577b34da6"))
            .build();
    body = new byte[256];
    io.harbinger.rabbit.Lanes.declared(io.harbinger.rabbit.Lanes.layout("jobs-lanes", 3, Map.of()));
  }

  /** The publish through the no-op channel alone. */
  @Benchmark
  public void raw() throws IOException {
    raw.basicPublish("", "jobs", props, body);
  }

  /** The same publish through the wrapper. */
  @Benchmark
  public void wrapped() throws IOException {
    wrapped.basicPublish("", "jobs", props, body);
  }

  /**
   * The same publish addressed to a logical lanes queue: the wrapper also picks the lane of the
   * level, which is the publish's routing key.
   */
  @Benchmark
  public void wrappedLanes() throws IOException {
    wrapped.basicPublish("", "jobs-lanes", props, body);
  }

  /** The predictor lookup alone, for reference. */
  @Benchmark
  public Object routeOnly() {
    return predictor.route(key);
  }

  /**
   * The stamp alone, as framework integrations (Spring AMQP) compute it before applying it to their
   * own message type: key, predictor lookup, priority and clock read, no properties object.
   */
  @Benchmark
  public Object stampOnly() {
    return stamper.stamp("", "jobs", "reserve", body.length, null, null);
  }

  /** The publish through the wrapper with a router that answers a constant. */
  @Benchmark
  public void wrappedFixedRouter() throws IOException {
    wrappedFixed.basicPublish("", "jobs", props, body);
  }

  /**
   * The client's own channel class with a publish that sends nothing, made without its constructor
   * (which needs a live connection): the wrapper refills one properties object per channel for the
   * client's channels, so this is the wrapper's own cost on the path real applications take.
   */
  public static final class NoOpChannelN extends com.rabbitmq.client.impl.ChannelN {
    private NoOpChannelN() {
      super(null, 1, (com.rabbitmq.client.impl.ConsumerWorkService) null);
    }

    @Override
    public void basicPublish(
        String exchange,
        String routingKey,
        boolean mandatory,
        boolean immediate,
        AMQP.BasicProperties props,
        byte[] body) {
      sink = props;
    }

    @Override
    public void addShutdownListener(com.rabbitmq.client.ShutdownListener listener) {}

    static NoOpChannelN create() throws ReflectiveOperationException {
      java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (NoOpChannelN) ((sun.misc.Unsafe) f.get(null)).allocateInstance(NoOpChannelN.class);
    }
  }

  /** The wrapper around the client's channel class, with the trained predictor. */
  @State(Scope.Thread)
  public static class ClientChannel {
    NoOpChannelN raw;
    Channel wrapped;

    /** Wraps a no-op client channel. */
    @Setup
    public void setUp(PublishOverheadBenchmark bench) throws Exception {
      raw = NoOpChannelN.create();
      wrapped =
          PredictiveChannels.wrap(
              raw, ChannelOptions.builder("shop").router(bench.predictor).build());
    }
  }

  /** A wrapped publish on the client's channel class, publishing nothing. */
  @Benchmark
  public void wrappedClientChannel(ClientChannel channel) throws IOException {
    channel.wrapped.basicPublish("", "jobs", props, body);
  }

  /**
   * A real RabbitMQ client channel, raw and wrapped, on a connection to the local broker ({@code
   * RABBITMQ_URI}), publishing to a routing key no queue has (RabbitMQ drops the message): the
   * client's own encoding and socket write are in both, so {@code wrappedToBroker - rawToBroker} is
   * what the wrapper adds on the real path, allocation included ({@code -prof gc}).
   */
  @State(Scope.Thread)
  public static class Broker {
    Connection connection;
    Channel raw;
    Channel wrapped;
    AMQP.BasicProperties sameMessage;
    String nowhere = "harbinger.bench.nowhere." + java.util.UUID.randomUUID();

    /** Connects, and wraps one of two channels with the same trained predictor. */
    @Setup
    public void setUp(PublishOverheadBenchmark bench) throws Exception {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(
          System.getenv().getOrDefault("RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/%2F"));
      connection = factory.newConnection("harbinger-publish-benchmark");
      raw = connection.createChannel();
      java.util.Map<String, Object> headers = new java.util.HashMap<>(bench.props.getHeaders());
      headers.put(
          io.harbinger.rabbit.HarbingerHeaders.STAMP,
          io.harbinger.rabbit.Stamp.headerValue(
                  MessageStamper.epochMicros(java.time.Clock.systemUTC()), 0, "predictive")
              .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      sameMessage =
          bench.props.builder().headers(headers).priority(2).userId(factory.getUsername()).build();
      wrapped =
          PredictiveChannels.wrap(
              connection.createChannel(),
              ChannelOptions.builder(factory.getUsername()).router(bench.predictor).build());
    }

    /** Closes the connection. */
    @TearDown
    public void tearDown() throws Exception {
      connection.close();
    }
  }

  /** A raw publish through the client's own channel to the broker. */
  @Benchmark
  public void rawToBroker(Broker broker) throws IOException {
    broker.raw.basicPublish("", broker.nowhere, props, body);
  }

  /**
   * A raw publish of the message as the wrapper sends it (stamp header, priority, {@code user-id}
   * set): {@code wrappedToBroker - rawSameMessageToBroker} is the wrapper's own work, and {@code
   * rawSameMessageToBroker - rawToBroker} what the client pays to send the stamp.
   */
  @Benchmark
  public void rawSameMessageToBroker(Broker broker) throws IOException {
    broker.raw.basicPublish("", broker.nowhere, broker.sameMessage, body);
  }

  /** The same publish through the wrapper around the client's own channel. */
  @Benchmark
  public void wrappedToBroker(Broker broker) throws IOException {
    broker.wrapped.basicPublish("", broker.nowhere, props, body);
  }
}
