package io.harbinger.launcher.demo;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DeliverCallback;
import io.harbinger.predictor.Router;
import io.harbinger.rabbit.ChannelOptions;
import io.harbinger.rabbit.PredictiveChannels;
import io.harbinger.rabbit.PriorityQueues;
import io.harbinger.rabbit.ReportSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One run of the demonstration: publishes the planned jobs through a wrapped channel into a fresh
 * priority queue, consumes them with four wrapped consumers (prefetch 1) whose handlers sleep for
 * the job's cost, and measures each job's latency from publish to the end of its handler.
 */
final class DemoRun {

  /** What one run measured: the latency of every job, by type, and jobs that never completed. */
  record Result(String name, List<String> types, long[] latencyNanos, int lost, Duration elapsed) {}

  private DemoRun() {}

  static Result run(
      String name,
      String queue,
      Connection producerConnection,
      Connection consumerConnection,
      String user,
      Router router,
      ReportSink reports,
      List<DemoWorkload.Job> jobs,
      double timeScale,
      Consumer<String> progress)
      throws IOException, InterruptedException, java.util.concurrent.TimeoutException {
    int n = jobs.size();
    AtomicLongArray publishedAt = new AtomicLongArray(n);
    AtomicLongArray doneAt = new AtomicLongArray(n);
    AtomicInteger done = new AtomicInteger();

    Channel admin = producerConnection.createChannel();
    admin.queueDelete(queue);
    PriorityQueues.declare(admin, queue, router.levels());

    List<Channel> consumers = new ArrayList<>();
    for (int i = 0; i < DemoWorkload.WORKERS; i++) {
      Channel channel =
          PredictiveChannels.wrap(
              consumerConnection.createChannel(),
              ChannelOptions.builder(user).reports(reports).build());
      channel.basicQos(1);
      DeliverCallback handler =
          (tag, delivery) -> {
            int seq = ByteBuffer.wrap(delivery.getBody()).getInt();
            long sleepNanos = (long) (jobs.get(seq).type().handlerMillis() * 1e6 * timeScale);
            LockSupport.parkNanos(sleepNanos);
            doneAt.set(seq, System.nanoTime());
            done.incrementAndGet();
            channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
          };
      channel.basicConsume(queue, false, handler, tag -> {});
      consumers.add(channel);
    }

    Channel producer =
        PredictiveChannels.wrap(
            producerConnection.createChannel(),
            ChannelOptions.builder(user).router(router).build());
    long start = System.nanoTime();
    long nextProgress = start;
    for (DemoWorkload.Job job : jobs) {
      long due = start + job.atNanos();
      for (long now = System.nanoTime(); now < due; now = System.nanoTime()) {
        LockSupport.parkNanos(Math.min(due - now, 50_000_000));
        if (now >= nextProgress) {
          progress.accept(line(name, start, job.seq(), n, done.get()));
          nextProgress = now + 500_000_000;
        }
      }
      AMQP.BasicProperties props =
          new AMQP.BasicProperties.Builder()
              .headers(Map.of("x-job-type", job.type().name()))
              .deliveryMode(1)
              .build();
      publishedAt.set(job.seq(), System.nanoTime());
      producer.basicPublish("", queue, props, ByteBuffer.allocate(4).putInt(job.seq()).array());
    }
    long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (done.get() < n && System.nanoTime() < drainDeadline) {
      progress.accept(line(name, start, n, n, done.get()));
      Thread.sleep(250);
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    progress.accept(line(name, start, n, n, done.get()));
    for (Channel c : consumers) {
      c.close();
    }
    producer.close();
    admin.queueDelete(queue);
    admin.close();

    long[] latency = new long[n];
    List<String> types = new ArrayList<>(n);
    int lost = 0;
    for (int i = 0; i < n; i++) {
      types.add(jobs.get(i).type().name());
      long end = doneAt.get(i);
      if (end == 0) {
        lost++;
        latency[i] = -1;
      } else {
        latency[i] = end - publishedAt.get(i);
      }
    }
    return new Result(name, types, latency, lost, elapsed);
  }

  private static String line(String name, long start, int published, int total, int done) {
    double seconds = (System.nanoTime() - start) / 1e9;
    return String.format(
        "%-22s %5.1f s  published %4d/%d  done %4d  waiting %4d",
        name, seconds, published, total, done, published - done);
  }
}
