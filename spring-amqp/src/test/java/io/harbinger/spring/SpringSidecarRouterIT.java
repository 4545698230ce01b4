package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.stub.StreamObserver;
import io.harbinger.predictor.Keys;
import io.harbinger.proto.v1.RouteEntry;
import io.harbinger.proto.v1.RouteUpdate;
import io.harbinger.proto.v1.RoutingMode;
import io.harbinger.proto.v1.SidecarGrpc;
import io.harbinger.proto.v1.Verdict;
import io.harbinger.proto.v1.WatchRoutesRequest;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.harbinger.testing.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * {@code harbinger.router.kind=sidecar}: the route table comes from a sidecar's {@code WatchRoutes}
 * stream, here a stand-in gRPC service on loopback that requires a bearer token.
 */
@WithBroker
class SpringSidecarRouterIT {

  private static final String TOKEN = "s3cret-token";

  private final List<String> queues = new ArrayList<>();
  private final List<String> exchanges = new ArrayList<>();

  /** Returns a reports exchange of the test's own, deleted after it. */
  private String exchange(String what) {
    String e = TestBroker.unique(what);
    exchanges.add(e);
    return e;
  }

  private ConfigurableApplicationContext context;
  private Server server;

  @AfterEach
  void tearDown(TestBroker broker) throws Exception {
    if (context != null) {
      context.close();
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    try (Connection c = broker.newConnection("harbinger-it-cleanup")) {
      queues.forEach(q -> Quietly.deleteQueue(c, q));
      exchanges.forEach(e -> Quietly.deleteExchange(c, e));
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ProducerApp {
    @Bean
    Queue jobs(HarbingerQueues queues, @Value("${test.queue}") String name) {
      return queues.queue(name);
    }
  }

  /**
   * Serves one full route table: "fast" at level 0, "slow" at level 2, to watchers with the token.
   */
  private int startSidecar(String user) throws Exception {
    SidecarGrpc.SidecarImplBase service =
        new SidecarGrpc.SidecarImplBase() {
          @Override
          public void watchRoutes(WatchRoutesRequest request, StreamObserver<RouteUpdate> updates) {
            updates.onNext(
                RouteUpdate.newBuilder()
                    .setFull(true)
                    .setVersion(1)
                    .setLevels(3)
                    .setDefaultLevel(1)
                    .setMode(RoutingMode.ROUTING_MODE_PREDICTIVE)
                    .addEntries(entry(Keys.of(user, "fast"), 0))
                    .addEntries(entry(Keys.of(user, "slow"), 2))
                    .build());
          }
        };
    Metadata.Key<String> authorization =
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    ServerInterceptor requireToken =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            if (!("Bearer " + TOKEN).equals(headers.get(authorization))) {
              call.close(io.grpc.Status.UNAUTHENTICATED, new Metadata());
              return new ServerCall.Listener<>() {};
            }
            return next.startCall(call, headers);
          }
        };
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(ServerInterceptors.intercept(service, requireToken))
            .build()
            .start();
    return server.getPort();
  }

  private static RouteEntry entry(String key, int level) {
    return RouteEntry.newBuilder()
        .setKey(key)
        .setLevel(level)
        .setVerdict(Verdict.VERDICT_PREDICTED)
        .setEstimateNanos(1e6)
        .build();
  }

  @Test
  void sidecarRouter_withTheToken_stampsTheSidecarsLevels(TestBroker broker) throws Exception {
    int port = startSidecar(broker.factory().getUsername());
    String q = TestBroker.unique("spring.sidecar");
    queues.add(q);
    context =
        BootApps.start(
            broker,
            ProducerApp.class,
            "test.queue=" + q,
            "harbinger.reports-exchange=" + exchange("spring.sidecar.reports"),
            "harbinger.router.kind=sidecar",
            "harbinger.router.sidecar.address=127.0.0.1:" + port,
            "harbinger.router.sidecar.token=" + TOKEN);
    HealthIndicator health = context.getBean("harbingerHealthIndicator", HealthIndicator.class);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> health.health().getDetails().get("routerConnected").equals(true));
    assertThat(health.health().getDetails())
        .containsEntry("router", "sidecar at 127.0.0.1:" + port);

    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    for (String jobType : List.of("slow", "fast", "unknown")) {
      template.convertAndSend(
          "",
          q,
          jobType,
          m -> {
            m.getMessageProperties().setHeader("x-job-type", jobType);
            return m;
          });
    }

    List<Integer> priorities = new ArrayList<>();
    try (Connection c = broker.newConnection("harbinger-it-drain")) {
      Channel ch = c.createChannel();
      ProgressWait.on("messages drained", priorities::size)
          .until(
              "3 messages drained",
              () -> {
                GetResponse r;
                while ((r = ch.basicGet(q, true)) != null) {
                  priorities.add(r.getProps().getPriority());
                }
                return priorities.size() >= 3;
              });
    }
    // The priority queue delivers highest first: fast (level 0), unknown (default 1), slow (2).
    assertThat(priorities).containsExactly(2, 1, 0);
  }

  @Test
  void sidecarRouter_wrongToken_defaultLevelAndHealthUnknown(TestBroker broker) throws Exception {
    int port = startSidecar(broker.factory().getUsername());
    String q = TestBroker.unique("spring.sidecar");
    queues.add(q);
    context =
        BootApps.start(
            broker,
            ProducerApp.class,
            "test.queue=" + q,
            "harbinger.reports-exchange=" + exchange("spring.sidecar.reports"),
            "harbinger.router.kind=sidecar",
            "harbinger.router.sidecar.address=127.0.0.1:" + port,
            "harbinger.router.sidecar.token=wrong");
    HealthIndicator health = context.getBean("harbingerHealthIndicator", HealthIndicator.class);
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    template.convertAndSend(
        "",
        q,
        "fast",
        m -> {
          m.getMessageProperties().setHeader("x-job-type", "fast");
          return m;
        });

    try (Connection c = broker.newConnection("harbinger-it-drain")) {
      Channel ch = c.createChannel();
      GetResponse[] got = new GetResponse[1];
      await().atMost(Duration.ofSeconds(10)).until(() -> (got[0] = ch.basicGet(q, true)) != null);
      assertThat(got[0].getProps().getPriority()).isEqualTo(1);
    }
    assertThat(health.health().getStatus()).isEqualTo(Status.UNKNOWN);
  }
}
