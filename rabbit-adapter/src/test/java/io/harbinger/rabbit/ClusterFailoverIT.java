package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Address;
import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import io.harbinger.testing.Environment;
import io.harbinger.testing.Prerequisite;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * High availability of quorum lanes on a 3-node RabbitMQ 4 cluster, pushed and pulled ({@link
 * LaneFetch}): the node leading the lanes is killed mid-run with publisher confirms on. Nothing
 * confirmed is lost, the consumer recovers on another node, short jobs overtake long ones again,
 * and a classic priority queue on the killed node is unavailable. The killed node is started again
 * after each case.
 *
 * <p>Runs only where {@code HARBINGER_CLUSTER_URIS} names the cluster's nodes (comma-separated AMQP
 * URIs, node 1 first: {@code scripts/rabbitmq4.sh cluster-uris}); {@code .ci/run} starts the
 * cluster, runs this test and stops the cluster. Nodes are killed with {@code scripts/rabbitmq4.sh
 * cluster-kill} ({@code HARBINGER_CLUSTER_SCRIPT} to use another script). Elsewhere it is skipped
 * with one line, and fails under {@code CI=true}. It is tagged {@code cluster}, which {@code ./mvnw
 * verify} leaves out; the step that has a cluster includes it with {@code
 * -Dharbinger.it.excludedGroups=}.
 */
@Tag("cluster")
class ClusterFailoverIT {

  private static final Prerequisite CLUSTER =
      Prerequisite.of(
          "a 3-node RabbitMQ 4 cluster",
          "Start one with `scripts/rabbitmq4.sh cluster-start 3` and set HARBINGER_CLUSTER_URIS to"
              + " the output of `scripts/rabbitmq4.sh cluster-uris`, or leave this test out (tag"
              + " cluster, left out by default: -Dharbinger.it.excludedGroups= includes it)");

  private static final int BURSTS = 14;
  private static final int KILL_AFTER_BURSTS = 3;
  private static final int LONG_PER_BURST = 3;
  private static final int SHORT_PER_BURST = 15;
  private static final long LONG_MILLIS = 60;
  private static final long SHORT_MILLIS = 2;

  private boolean killed;

  private record Delivered(String id, int burst, boolean shortJob, long atNanos) {}

  @ParameterizedTest(name = "{0}")
  @EnumSource(LaneFetch.class)
  void quorumLanes_leaderKilled_nothingConfirmedLost_consumerRecovers_shortJobsOvertakeAgain(
      LaneFetch fetch) throws Exception {
    String urisVariable = Environment.current().get("HARBINGER_CLUSTER_URIS").orElse(null);
    CLUSTER.require(urisVariable != null, "HARBINGER_CLUSTER_URIS is not set");
    List<String> uris = List.of(urisVariable.split(","));
    assertThat(uris).as("three cluster nodes in HARBINGER_CLUSTER_URIS").hasSize(3);
    String queue = "harbinger.failover.jobs." + Long.toHexString(System.nanoTime());
    String classic = queue + ".prio";
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(uris.get(1));
    factory.setNetworkRecoveryInterval(500);
    factory.setRequestedHeartbeat(5);
    String user = factory.getUsername();

    // Declare the lanes and the classic priority queue on node 2, which then leads them.
    try (Connection admin = factory.newConnection("harbinger-failover-admin");
        Channel ch = admin.createChannel()) {
      Map<String, Object> args = new HashMap<>();
      args.put(QueueType.ARGUMENT, "quorum");
      args.put("x-queue-leader-locator", "client-local");
      Lanes.declare(ch, queue, 3, args);
      PriorityQueues.declare(ch, classic, 3, Map.of("x-queue-leader-locator", "client-local"));
    }
    LaneLayout layout = Lanes.layoutOf(queue);
    int leader = leaderNode(layout.laneName(0));
    assertThat(leader).as("the node leading %s", layout.laneName(0)).isEqualTo(2);
    int other = leader == 1 ? 3 : 1;

    ExecutorService threads = Executors.newFixedThreadPool(4);
    ExecutorService producerThreads = Executors.newFixedThreadPool(2);
    Connection consumerConnection =
        factory.newConnection(threads, addresses(uris, leader), "harbinger-failover-consumer");
    Connection producerConnection =
        factory.newConnection(
            producerThreads, addresses(uris, other), "harbinger-failover-producer");
    AtomicLong recoveredAtNanos = new AtomicLong();
    ((Recoverable) consumerConnection)
        .addRecoveryListener(
            new RecoveryListener() {
              @Override
              public void handleRecovery(Recoverable recoverable) {
                recoveredAtNanos.compareAndSet(0, System.nanoTime());
              }

              @Override
              public void handleRecoveryStarted(Recoverable recoverable) {}
            });
    try {
      Channel consumer =
          PredictiveChannels.wrap(
              consumerConnection.createChannel(),
              ChannelOptions.builder(user).lanes(LaneOptions.defaults().withFetch(fetch)).build());
      consumer.basicQos(1);
      List<Delivered> delivered = new CopyOnWriteArrayList<>();
      Set<String> acked = ConcurrentHashMap.newKeySet();
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            String id = d.getProperties().getMessageId();
            boolean shortJob = id.startsWith("short");
            try {
              Thread.sleep(shortJob ? SHORT_MILLIS : LONG_MILLIS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            delivered.add(
                new Delivered(
                    id,
                    Integer.parseInt(id.substring(id.indexOf('.') + 1, id.lastIndexOf('.'))),
                    shortJob,
                    System.nanoTime()));
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
            acked.add(id);
          },
          tag -> {});

      Channel producer =
          PredictiveChannels.wrap(
              producerConnection.createChannel(),
              ChannelOptions.builder(user).router(LanesIT.router()).build());
      producer.confirmSelect();
      ConcurrentSkipListMap<Long, String> unconfirmed = new ConcurrentSkipListMap<>();
      Set<String> confirmed = ConcurrentHashMap.newKeySet();
      AtomicInteger nacked = new AtomicInteger();
      producer.addConfirmListener(
          (seq, multiple) -> settle(unconfirmed, seq, multiple, confirmed),
          (seq, multiple) -> nacked.addAndGet(settle(unconfirmed, seq, multiple, null)));
      // The cluster may close the producer's connection too while it settles. What was then
      // unconfirmed is in doubt, never confirmed: the recovered channel numbers its publishes from
      // 1 again, so its confirms must not settle the entries of the channel before.
      AtomicInteger inDoubt = new AtomicInteger();
      producerConnection.addShutdownListener(
          cause -> {
            if (!cause.isInitiatedByApplication()) {
              while (unconfirmed.pollFirstEntry() != null) {
                inDoubt.incrementAndGet();
              }
            }
          });

      long killedAtNanos = 0;
      killed = false;
      int published = 0;
      AtomicLong classicAnsweredNanos = new AtomicLong();
      java.util.concurrent.CompletableFuture<String> classicCheck = null;
      for (int burst = 0; burst < BURSTS; burst++) {
        long burstStart = System.nanoTime();
        if (burst == KILL_AFTER_BURSTS) {
          kill(leader);
          killed = true;
          killedAtNanos = System.nanoTime();
          classicCheck =
              java.util.concurrent.CompletableFuture.supplyAsync(
                  () -> classicRefusal(producerConnection, classic, classicAnsweredNanos));
        }
        for (int i = 0; i < LONG_PER_BURST + SHORT_PER_BURST; i++) {
          String type = i < LONG_PER_BURST ? "long" : "short";
          String id = type + "." + burst + "." + i;
          long seq = producer.getNextPublishSeqNo();
          try {
            unconfirmed.put(seq, id);
            producer.basicPublish("", queue, job(type, id), new byte[0]);
            published++;
          } catch (IOException | com.rabbitmq.client.AlreadyClosedException e) {
            // The producer's connection is down: not published, so never confirmed.
            unconfirmed.remove(seq, id);
          }
        }
        long left = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - burstStart);
        if (left > 0) {
          TimeUnit.NANOSECONDS.sleep(left);
        }
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(() -> assertThat(acked).containsAll(confirmed));
      Set<String> lost = new java.util.TreeSet<>(confirmed);
      lost.removeAll(acked);

      // Recovery: the first delivery after the kill, and the first short job of a burst published
      // after the kill that overtook a long job of its burst.
      long killedAt = killedAtNanos;
      long firstAfter = Long.MAX_VALUE;
      long overtakingAgain = Long.MAX_VALUE;
      for (Delivered d : delivered) {
        if (d.atNanos() > killedAt) {
          firstAfter = Math.min(firstAfter, d.atNanos());
        }
        if (d.burst() >= KILL_AFTER_BURSTS && d.shortJob() && overtook(d, delivered)) {
          overtakingAgain = Math.min(overtakingAgain, d.atNanos());
        }
      }
      int burstsOvertaking = 0;
      for (int burst = KILL_AFTER_BURSTS; burst < BURSTS; burst++) {
        if (shortsBeforeLastLong(burst, delivered) > 0) {
          burstsOvertaking++;
        }
      }
      System.out.printf(
          "failover (%s): published %d, confirmed %d, nacked %d, in doubt after the producer's"
              + " connection dropped %d, delivered %d (%d distinct), confirmed but lost %d; consumer"
              + " recovered %.1f s after the kill, first delivery after the kill at %.1f s, short"
              + " jobs overtaking long ones again at %.1f s; %d of %d bursts after the kill had short"
              + " jobs overtaking%n",
          fetch,
          published,
          confirmed.size(),
          nacked.get(),
          inDoubt.get(),
          delivered.size(),
          acked.size(),
          lost.size(),
          seconds(recoveredAtNanos.get() - killedAt),
          seconds(firstAfter - killedAt),
          seconds(overtakingAgain - killedAt),
          burstsOvertaking,
          BURSTS - KILL_AFTER_BURSTS);

      assertThat(lost).as("confirmed but never delivered").isEmpty();
      assertThat(confirmed.size()).isGreaterThan(published / 2);
      assertThat(recoveredAtNanos.get()).as("the consumer's connection recovered").isPositive();
      assertThat(overtakingAgain).as("short jobs overtake again after the kill").isNotEqualTo(0);
      assertThat(seconds(overtakingAgain - killedAt)).isLessThan(20.0);
      assertThat(burstsOvertaking).isGreaterThanOrEqualTo((BURSTS - KILL_AFTER_BURSTS) / 2);

      // The classic priority queue lived on the killed node: it is unavailable.
      String refusal = classicCheck.get(90, TimeUnit.SECONDS);
      System.out.println(
          "failover ("
              + fetch
              + "): classic priority queue on the killed node: unavailable ("
              + refusal
              + ", answered "
              + String.format("%.1f", seconds(classicAnsweredNanos.get() - killedAt))
              + " s after the kill)");
      assertThat(refusal).contains("NOT_FOUND");
    } finally {
      closeQuietly(consumerConnection);
      try (Channel ch = producerConnection.createChannel()) {
        for (String lane : layout.laneNames()) {
          ch.queueDelete(lane);
        }
      } catch (IOException | RuntimeException ignored) {
        // The cluster is thrown away after the test.
      }
      closeQuietly(producerConnection);
      threads.shutdownNow();
      producerThreads.shutdownNow();
      if (killed) {
        // The next case declares its lanes on this node again.
        System.out.println("failover: " + script("cluster-revive", String.valueOf(leader)).trim());
      }
    }
  }

  /** Declares the classic queue passively and returns RabbitMQ's refusal, or "available". */
  private static String classicRefusal(Connection connection, String queue, AtomicLong answered) {
    try (Channel check = connection.createChannel()) {
      check.queueDeclarePassive(queue);
      return "available";
    } catch (IOException e) {
      return String.valueOf(reason(e));
    } catch (Exception e) {
      return e.toString();
    } finally {
      answered.set(System.nanoTime());
    }
  }

  private static int settle(
      ConcurrentSkipListMap<Long, String> unconfirmed,
      long seq,
      boolean multiple,
      Set<String> into) {
    int n = 0;
    if (multiple) {
      var head = unconfirmed.headMap(seq, true);
      for (String id : head.values()) {
        if (into != null) {
          into.add(id);
        }
        n++;
      }
      head.clear();
    } else {
      String id = unconfirmed.remove(seq);
      if (id != null) {
        if (into != null) {
          into.add(id);
        }
        n++;
      }
    }
    return n;
  }

  /** Whether a short job was delivered while a long job of its own burst was still waiting. */
  private static boolean overtook(Delivered s, List<Delivered> all) {
    for (Delivered d : all) {
      if (!d.shortJob() && d.burst() == s.burst() && d.atNanos() > s.atNanos()) {
        return true;
      }
    }
    return false;
  }

  private static int shortsBeforeLastLong(int burst, List<Delivered> all) {
    long lastLong = 0;
    for (Delivered d : all) {
      if (!d.shortJob() && d.burst() == burst) {
        lastLong = Math.max(lastLong, d.atNanos());
      }
    }
    int n = 0;
    for (Delivered d : all) {
      if (d.shortJob() && d.burst() == burst && d.atNanos() < lastLong) {
        n++;
      }
    }
    return n;
  }

  private static AMQP.BasicProperties job(String type, String id) {
    return new AMQP.BasicProperties.Builder()
        .messageId(id)
        .deliveryMode(2)
        .headers(Map.of("x-job-type", type))
        .build();
  }

  /** Addresses of every node, the given one first, in that order (no shuffling). */
  private static AddressResolver addresses(List<String> uris, int firstNode) {
    List<Address> list = new ArrayList<>();
    list.add(address(uris.get(firstNode - 1)));
    for (int i = 0; i < uris.size(); i++) {
      if (i != firstNode - 1) {
        list.add(address(uris.get(i)));
      }
    }
    return new AddressResolver() {
      @Override
      public List<Address> getAddresses() {
        return list;
      }

      @Override
      public List<Address> maybeShuffle(List<Address> input) {
        return input;
      }
    };
  }

  private static Address address(String uri) {
    URI u = URI.create(uri);
    return new Address(u.getHost(), u.getPort());
  }

  private static int leaderNode(String queue) throws Exception {
    String out =
        script("cluster-ctl", "1", "list_queues", "-q", "--no-table-headers", "name", "leader");
    for (String line : out.split("\n")) {
      String[] cols = line.trim().split("\\s+");
      if (cols.length == 2 && cols[0].equals(queue)) {
        String node = cols[1];
        return Integer.parseInt(node.substring("rabbit4-c".length(), node.indexOf('@')));
      }
    }
    throw new AssertionError("no leader of " + queue + " in: " + out);
  }

  private static void kill(int node) throws Exception {
    System.out.println("failover: " + script("cluster-kill", String.valueOf(node)).trim());
  }

  private static String script(String... args) throws Exception {
    String configured = System.getenv("HARBINGER_CLUSTER_SCRIPT");
    Path script =
        configured != null
            ? Path.of(configured)
            : Files.exists(Path.of("scripts/rabbitmq4.sh"))
                ? Path.of("scripts/rabbitmq4.sh")
                : Path.of("../scripts/rabbitmq4.sh");
    List<String> command = new ArrayList<>(List.of("bash", script.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError(String.join(" ", command) + " failed: " + out);
    }
    return out;
  }

  private static Object reason(Throwable e) {
    Throwable t = e;
    while (t != null) {
      if (t instanceof com.rabbitmq.client.ShutdownSignalException s) {
        return s.getReason() instanceof AMQP.Channel.Close c ? c.getReplyText() : s.getMessage();
      }
      t = t.getCause();
    }
    return e.getMessage();
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close(5_000);
    } catch (IOException | RuntimeException ignored) {
      // Already gone.
    }
  }
}
