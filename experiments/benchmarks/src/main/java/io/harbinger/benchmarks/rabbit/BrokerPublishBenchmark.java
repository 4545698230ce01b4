package io.harbinger.benchmarks.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.Stamp;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Publish throughput to the real broker, through the raw channel and through the wrapper, in one
 * run: the ratio {@code wrapped / raw} is the wrapper's throughput cost.
 *
 * <p>Both arms publish 256-byte messages on their own channel of one connection into the same
 * classic priority queue, capped at 10,000 messages (oldest dropped) so that a long run does not
 * fill the broker; with {@code target=unroutable} they go to no queue, which takes the queue's flow
 * control (and much of the broker's noise) out of the comparison. The broker is found from {@code
 * RABBITMQ_URI} (default the loopback guest account). Run with {@code java -jar
 * experiments/benchmarks/target/benchmarks.jar BrokerPublishBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class BrokerPublishBenchmark {

  private BrokerFixture fixture;
  private Connection connection;
  private Channel raw;
  private Channel wrapped;
  private String queue;
  private String routingKey;

  /**
   * Where messages go: {@code queue} into the capped priority queue, {@code unroutable} to a name
   * no queue has, so the broker parses and drops each message without queue flow control.
   */
  @Param({"queue", "unroutable"})
  public String target;

  private AMQP.BasicProperties props;
  private AMQP.BasicProperties stampedProps;
  private byte[] body;

  /** Connects, declares the queue and wraps a channel around a trained predictor. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    fixture = BrokerFixture.open("harbinger.bench.publish");
    connection = fixture.connection;
    queue = fixture.queue;
    routingKey = target.equals("queue") ? queue : queue + ".nobody";
    String user = fixture.user;
    HistogramPredictor predictor = fixture.trainedPredictor();
    raw = connection.createChannel();
    wrapped =
        PredictiveChannels.wrap(
            connection.createChannel(), ChannelOptions.builder(user).router(predictor).build());
    props =
        new AMQP.BasicProperties.Builder()
            .contentType("application/json")
            .headers(Map.of("x-job-type", "reserve"))
            .build();
    body = new byte[256];
    stampedProps =
        props
            .builder()
            .priority(2)
            .userId(user)
            .headers(
                Map.of(
                    "x-job-type",
                    "reserve",
                    HarbingerHeaders.STAMP,
                    Stamp.headerValue(1_700_000_000_000_000L, 0, "predictive")))
            .build();
  }

  /** Deletes the queue and closes the connection. */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    fixture.close();
  }

  /** Publishes through the application's own channel. */
  @Benchmark
  public void raw() throws Exception {
    raw.basicPublish("", routingKey, props, body);
  }

  /**
   * Publishes through the application's own channel with the properties the wrapper would send:
   * separates the cost of the larger message on the broker from the wrapper's own CPU.
   */
  @Benchmark
  public void rawStamped() throws Exception {
    raw.basicPublish("", routingKey, stampedProps, body);
  }

  /** Publishes through the wrapped channel. */
  @Benchmark
  public void wrapped() throws Exception {
    wrapped.basicPublish("", routingKey, props, body);
  }
}
