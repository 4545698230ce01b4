package io.harbinger.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.harbinger.broker.client.BrokerConsumer;
import io.harbinger.broker.client.BrokerProducer;
import io.harbinger.predictor.Ticker;
import io.harbinger.proto.v1.AckRequest;
import io.harbinger.proto.v1.BrokerGrpc;
import io.harbinger.proto.v1.ConsumeRequest;
import io.harbinger.proto.v1.ConsumeResponse;
import io.harbinger.proto.v1.DlqReason;
import io.harbinger.proto.v1.InspectDlqRequest;
import io.harbinger.proto.v1.InspectDlqResponse;
import io.harbinger.proto.v1.NackRequest;
import io.harbinger.proto.v1.PullRequest;
import io.harbinger.proto.v1.PulledMessage;
import io.harbinger.proto.v1.SubmitRequest;
import io.harbinger.scheduler.SchedulerConfig;
import io.harbinger.scheduler.Selection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BrokerServerTest {

  private BrokerServer server;
  private ManagedChannel channel;

  private BrokerGrpc.BrokerBlockingStub start(BrokerConfig config, ServerInterceptor... hooks)
      throws Exception {
    String name = InProcessServerBuilder.generateName();
    MessageBroker broker = new MessageBroker(config, null, Ticker.SYSTEM);
    InProcessServerBuilder builder = InProcessServerBuilder.forName(name);
    server = new BrokerServer(new InterceptingBuilder(builder, hooks), broker).start();
    channel = InProcessChannelBuilder.forName(name).build();
    return BrokerGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private static void assertStatus(Runnable call, Status.Code code, String text) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code))
        .hasMessageContaining(text);
  }

  @Test
  void badInput_overGrpc_getsTheRightStatus() throws Exception {
    BrokerGrpc.BrokerBlockingStub stub = start(BrokerConfig.defaults());
    BrokerProducer producer = BrokerProducer.register(channel);
    BrokerConsumer consumer = BrokerConsumer.register(channel);

    assertStatus(
        () -> stub.submit(SubmitRequest.newBuilder().setProducerId("nobody").build()),
        Status.Code.PERMISSION_DENIED,
        "producer is not registered: nobody");
    assertStatus(
        () -> producer.submit(ByteString.EMPTY, Map.of(), Duration.ofMillis(-1)),
        Status.Code.INVALID_ARGUMENT,
        "ttl_ms must not be negative: -1");
    assertStatus(
        () -> producer.submit(ByteString.EMPTY, Map.of("x-job-type", "k".repeat(200))),
        Status.Code.INVALID_ARGUMENT,
        "x-job-type must be at most 128 UTF-8 bytes: 200");
    assertStatus(
        () -> producer.submit(ByteString.EMPTY, Map.of("big", "v".repeat(5000))),
        Status.Code.INVALID_ARGUMENT,
        "header big must be at most 4096 UTF-8 bytes: 5000");
    assertStatus(
        () -> stub.pull(PullRequest.newBuilder().setConsumerId("c-nobody").build()),
        Status.Code.PERMISSION_DENIED,
        "consumer is not registered");
    assertStatus(
        () ->
            stub.ack(
                AckRequest.newBuilder()
                    .setConsumerId(consumer.consumerId())
                    .setMessageId("m-1")
                    .setAttemptToken("no-such-attempt")
                    .build()),
        Status.Code.NOT_FOUND,
        "no delivery for attempt token no-such-attempt");
    assertStatus(
        () ->
            stub.ack(
                AckRequest.newBuilder()
                    .setConsumerId(consumer.consumerId())
                    .setMessageId("m-1")
                    .setAttemptToken("bad/token")
                    .build()),
        Status.Code.INVALID_ARGUMENT,
        "attempt_token must be letters, digits or '-'");
  }

  @Test
  void staleAndReplayedSettlements_overGrpc() throws Exception {
    BrokerGrpc.BrokerBlockingStub stub = start(BrokerConfig.defaults());
    BrokerProducer producer = BrokerProducer.register(channel);
    BrokerConsumer consumer = BrokerConsumer.register(channel);
    String id = producer.submit(ByteString.copyFromUtf8("x"), Map.of("x-job-type", "t"));

    PulledMessage first = consumer.pull(Duration.ofSeconds(1));
    assertThat(consumer.nack(first, 1_000, "try again")).isTrue();
    PulledMessage second = consumer.pull(Duration.ofSeconds(1));
    assertThat(second.getMessageId()).isEqualTo(id);
    assertThat(second.getDeliveryCount()).isEqualTo(2);

    // the Nack of the first delivery is replayed as OK; an Ack of it is refused
    assertThat(consumer.nack(first, 1_000, "try again")).isTrue();
    assertThat(consumer.ack(first, 1_000)).isFalse();
    assertThat(consumer.leasesLost()).isEqualTo(1);
    assertThat(consumer.ack(second, 1_000)).isTrue();
    assertThat(consumer.ack(second, 1_000)).isTrue();
    assertThat(server.broker().stats().completed()).isEqualTo(1);
    assertThat(server.broker().stats().replays()).isEqualTo(2);
    assertThat(stub.inspectDlq(InspectDlqRequest.getDefaultInstance()).getTotalSize()).isZero();
  }

  @Test
  void inspectDlq_overGrpc_showsReasonDetailsAndRetries() throws Exception {
    BrokerGrpc.BrokerBlockingStub stub = start(BrokerConfig.defaults());
    BrokerProducer producer = BrokerProducer.register(channel);
    BrokerConsumer consumer = BrokerConsumer.register(channel);
    String id = producer.submit(ByteString.copyFromUtf8("poison"), Map.of());
    for (int i = 0; i < 3; i++) {
      consumer.nack(consumer.pull(Duration.ofSeconds(1)), 10, "bad input " + i);
    }
    InspectDlqResponse dlq = stub.inspectDlq(InspectDlqRequest.newBuilder().setLimit(5).build());
    assertThat(dlq.getTotalSize()).isEqualTo(1);
    assertThat(dlq.getEntries(0).getMessageId()).isEqualTo(id);
    assertThat(dlq.getEntries(0).getReason()).isEqualTo(DlqReason.DLQ_MAX_RETRIES_EXCEEDED);
    assertThat(dlq.getEntries(0).getDetails()).endsWith("last reason: bad input 2");
    assertThat(dlq.getEntries(0).getRetryCount()).isEqualTo(3);
    assertThat(dlq.getEntries(0).getPayload().toStringUtf8()).isEqualTo("poison");
  }

  @Test
  void health_afterStart_isServing() throws Exception {
    start(BrokerConfig.defaults());
    HealthCheckResponse response =
        HealthGrpc.newBlockingStub(channel)
            .check(HealthCheckRequest.newBuilder().setService("harbinger.v1.Broker").build());
    assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void ack_responseLostOnce_clientRetriesAndBrokerReplays() throws Exception {
    AtomicBoolean dropped = new AtomicBoolean();
    ServerInterceptor dropFirstAckResponse =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            if (!call.getMethodDescriptor().getFullMethodName().endsWith("/Ack")
                || !dropped.compareAndSet(false, true)) {
              return next.startCall(call, headers);
            }
            return next.startCall(
                new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                  @Override
                  public void sendMessage(R message) {}

                  @Override
                  public void close(Status status, Metadata trailers) {
                    super.close(Status.UNAVAILABLE.withDescription("lost"), trailers);
                  }
                },
                headers);
          }
        };
    start(BrokerConfig.defaults(), dropFirstAckResponse);
    BrokerProducer producer = BrokerProducer.register(channel);
    BrokerConsumer consumer = BrokerConsumer.register(channel);
    producer.submit(ByteString.EMPTY, Map.of());
    PulledMessage m = consumer.pull(Duration.ofSeconds(1));

    assertThat(consumer.ack(m, 1_000)).isTrue();
    assertThat(dropped).isTrue();
    assertThat(server.broker().stats().completed()).isEqualTo(1);
    assertThat(server.broker().stats().replays()).isEqualTo(1);
  }

  @Test
  void concurrentProducersAndConsumers_everyMessageAccountedFor() throws Exception {
    BrokerConfig config =
        BrokerConfig.defaults()
            .withPolicy(
                Policy.STATIC_TUNED, SchedulerConfig.defaults().withSelection(Selection.WEIGHTED))
            .withLease(Duration.ofMillis(300));
    start(config);
    int producers = 4;
    int consumers = 4;
    int perProducer = 500;
    List<String> types = List.of("reserve_inventory", "send_sms", "export_report", "other");
    Set<String> submitted = ConcurrentHashMap.newKeySet();
    Set<String> acked = ConcurrentHashMap.newKeySet();
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    Set<String> failedOrOverran = ConcurrentHashMap.newKeySet();
    AtomicBoolean running = new AtomicBoolean(true);
    ExecutorService pool = Executors.newFixedThreadPool(producers + consumers);
    List<Future<?>> consumerRuns = new ArrayList<>();
    List<BrokerConsumer> consumerClients = new ArrayList<>();
    try {
      for (int c = 0; c < consumers; c++) {
        BrokerConsumer consumer = BrokerConsumer.register(channel);
        consumerClients.add(consumer);
        SplittableRandom random = new SplittableRandom(100 + c);
        // one consumer overruns, so that the others are always free to take the redelivery
        boolean overruns = c == 0;
        consumerRuns.add(
            pool.submit(
                () ->
                    consumer.consume(
                        m -> {
                          String body = m.getPayload().toStringUtf8();
                          runs.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
                          double r = random.nextDouble();
                          if (r < 0.05) {
                            failedOrOverran.add(body);
                            return false; // a failing handler: retried, sometimes dead-lettered
                          }
                          if (overruns && r < 0.07 && m.getDeliveryCount() == 1) {
                            failedOrOverran.add(body);
                            // overrun the lease: hold the message until the broker has expired
                            // it and delivered it again to another consumer
                            await()
                                .atMost(Duration.ofSeconds(30))
                                .until(() -> runs.get(body).get() > 1);
                          }
                          acked.add(body);
                          return true;
                        },
                        running::get,
                        Duration.ofMillis(100))));
      }
      List<Future<?>> producerRuns = new ArrayList<>();
      for (int p = 0; p < producers; p++) {
        int producerIndex = p;
        producerRuns.add(
            pool.submit(
                () -> {
                  BrokerProducer producer = BrokerProducer.register(channel);
                  for (int i = 0; i < perProducer; i++) {
                    String body = producerIndex + "/" + i;
                    producer.submit(
                        ByteString.copyFromUtf8(body),
                        Map.of("x-job-type", types.get(i % types.size())));
                    submitted.add(body);
                  }
                }));
      }
      for (Future<?> f : producerRuns) {
        f.get(60, TimeUnit.SECONDS);
      }
      MessageBroker broker = server.broker();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                BrokerStats s = broker.stats();
                return s.completed() + s.deadLettered() == producers * perProducer
                    && s.inFlight() == 0;
              });
      running.set(false);
      for (Future<?> f : consumerRuns) {
        f.get(10, TimeUnit.SECONDS);
      }
      BrokerStats stats = broker.stats();
      assertThat(submitted).hasSize(producers * perProducer);
      assertThat(stats.submitted()).isEqualTo(producers * perProducer);
      assertThat(stats.queued()).isZero();
      assertThat(stats.nacks()).isPositive();
      assertThat(stats.leaseExpiries()).isPositive();
      // every delivery ended in exactly one of: accepted Ack, Nack, lease expiry
      assertThat(stats.deliveries())
          .isEqualTo(stats.completed() + stats.nacks() + stats.leaseExpiries());
      // a message ran more than once only after a failure or an overrun (at-least-once)
      runs.forEach(
          (body, count) -> {
            if (count.get() > 1) {
              assertThat(failedOrOverran).as(body).contains(body);
            }
          });
      DlqPage dlq = broker.inspectDlq(100, 0);
      Set<String> dead = ConcurrentHashMap.newKeySet();
      for (int offset = 0; offset < dlq.totalSize(); offset += 100) {
        broker.inspectDlq(100, offset).entries().forEach(e -> dead.add(e.payload().toStringUtf8()));
      }
      // every message was completed or dead-lettered; handlers saw only submitted messages
      Set<String> accounted = ConcurrentHashMap.newKeySet();
      accounted.addAll(dead);
      // a completed message's handler returned true at least once
      submitted.stream().filter(b -> !dead.contains(b)).forEach(b -> assertThat(acked).contains(b));
      accounted.addAll(acked);
      assertThat(accounted).containsAll(submitted);
      assertThat(submitted).containsAll(accounted);
      assertThat(stats.completed() + stats.deadLettered()).isEqualTo(producers * perProducer);
      long lost = consumerClients.stream().mapToLong(BrokerConsumer::leasesLost).sum();
      assertThat(lost).isPositive();
    } finally {
      running.set(false);
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void streams_submitAndConsumeWithCredit_everyMessageCompletedOnce() throws Exception {
    start(BrokerConfig.defaults());
    BrokerProducer producer = BrokerProducer.register(channel);
    BrokerConsumer consumer = BrokerConsumer.register(channel);
    int count = 500;
    try (BrokerProducer.SubmitStream stream = producer.openStream(64)) {
      for (int i = 0; i < count; i++) {
        stream.submit(ByteString.copyFromUtf8("m" + i), Map.of("x-job-type", "t"));
      }
    }
    assertThat(server.broker().stats().submitted()).isEqualTo(count);
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    AtomicBoolean running = new AtomicBoolean(true);
    Thread t =
        Thread.ofPlatform()
            .start(
                () ->
                    consumer.consumeStream(
                        m -> {
                          String body = m.getPayload().toStringUtf8();
                          int runs =
                              seen.computeIfAbsent(body, b -> new AtomicInteger())
                                  .incrementAndGet();
                          // every tenth message fails once and comes back
                          return !(body.endsWith("0") && runs == 1);
                        },
                        running::get,
                        4));
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> server.broker().stats().completed() == count);
    } finally {
      running.set(false);
      t.join(5_000);
    }
    BrokerStats stats = server.broker().stats();
    assertThat(stats.nacks()).isEqualTo(count / 10);
    assertThat(stats.deliveries()).isEqualTo(count + count / 10);
    assertThat(seen).hasSize(count);
    assertThat(stats.inFlight()).isZero();
  }

  @Test
  void consume_unregisteredConsumer_endsWithPermissionDenied() throws Exception {
    start(BrokerConfig.defaults());
    BrokerConsumer registered = BrokerConsumer.register(channel);
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    StreamObserver<ConsumeRequest> requests =
        BrokerGrpc.newStub(channel)
            .consume(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ConsumeResponse value) {}

                  @Override
                  public void onError(Throwable t) {
                    ended.complete(t);
                  }

                  @Override
                  public void onCompleted() {
                    ended.complete(null);
                  }
                });
    requests.onNext(ConsumeRequest.newBuilder().setConsumerId("c-forged").setCredit(1).build());
    Throwable t = ended.get(10, TimeUnit.SECONDS);
    assertThat(Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(registered.consumerId()).isNotEqualTo("c-forged");
  }

  @Test
  void submitStream_refusedMessage_endsTheStreamWithItsStatus() throws Exception {
    start(BrokerConfig.defaults());
    BrokerProducer producer = BrokerProducer.register(channel);
    BrokerProducer.SubmitStream stream = producer.openStream(1);
    stream.submit(ByteString.EMPTY, Map.of("x-size-hint", "lots"));
    assertStatus(
        () -> {
          try {
            stream.close();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        },
        Status.Code.INVALID_ARGUMENT,
        "x-size-hint must be a non-negative integer: lots");
    assertThat(server.broker().stats().submitted()).isZero();
  }

  @Test
  void consume_conflictingSettlementOnStream_isReportedWithoutEndingIt() throws Exception {
    start(BrokerConfig.defaults());
    BrokerProducer producer = BrokerProducer.register(channel);
    BrokerConsumer consumer = BrokerConsumer.register(channel);
    producer.submit(ByteString.copyFromUtf8("a"), Map.of());
    producer.submit(ByteString.copyFromUtf8("b"), Map.of());
    BlockingQueue<ConsumeResponse> responses = new LinkedBlockingQueue<>();
    StreamObserver<ConsumeRequest> requests =
        BrokerGrpc.newStub(channel)
            .consume(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ConsumeResponse value) {
                    responses.add(value);
                  }

                  @Override
                  public void onError(Throwable t) {}

                  @Override
                  public void onCompleted() {}
                });
    requests.onNext(
        ConsumeRequest.newBuilder().setConsumerId(consumer.consumerId()).setCredit(1).build());
    PulledMessage first = responses.poll(10, TimeUnit.SECONDS).getMessage();
    // nack it, then try to ack the same attempt: the ack is refused on the stream
    requests.onNext(
        ConsumeRequest.newBuilder()
            .addNacks(
                NackRequest.newBuilder()
                    .setMessageId(first.getMessageId())
                    .setAttemptToken(first.getAttemptToken())
                    .setReason("no"))
            .addAcks(
                AckRequest.newBuilder()
                    .setMessageId(first.getMessageId())
                    .setAttemptToken(first.getAttemptToken()))
            .setCredit(1)
            .build());
    ConsumeResponse refusal = null;
    ConsumeResponse next = null;
    for (int i = 0; i < 2; i++) {
      ConsumeResponse r = responses.poll(10, TimeUnit.SECONDS);
      if (r.hasMessage()) {
        next = r;
      } else {
        refusal = r;
      }
    }
    assertThat(refusal).isNotNull();
    assertThat(refusal.getRefusedAttemptToken()).isEqualTo(first.getAttemptToken());
    assertThat(refusal.getRefusedCode()).isEqualTo(Status.Code.FAILED_PRECONDITION.value());
    assertThat(refusal.getRefusedDescription()).contains("Attempt already settled or expired");
    assertThat(next.getMessage().getPayload().toStringUtf8()).isEqualTo("b");
    requests.onCompleted();
  }
}
