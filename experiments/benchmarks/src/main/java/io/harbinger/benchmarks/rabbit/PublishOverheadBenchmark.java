package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CPU a wrapped channel adds to one publish: the same publish through a no-op channel, raw and
 * wrapped, with an in-process predictor that has learned the message's key.
 *
 * <p>The difference {@code wrapped - raw} is the wrapper's cost: key lookup, one predictor lookup,
 * one clock read, one headers map and one properties object ({@code wrappedLanes}: and the lane's
 * name). Run with {@code java -jar experiments/benchmarks/target/benchmarks.jar
 * PublishOverheadBenchmark}; add {@code -prof gc} for allocation per publish.
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
    for (int i = 0; i < 300; i++) {
      predictor.observe(Keys.of("shop", "reserve"), 2_000_000 + i);
      predictor.observe(Keys.of("shop", "export"), 2_000_000_000L + i);
      predictor.observe(Keys.of("shop", "mail"), 40_000_000 + i);
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
}
