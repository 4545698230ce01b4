package io.harbinger.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Predictor;
import io.harbinger.testing.BrokerKind;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import io.harbinger.testing.WithBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample as a user runs it: jobs posted to its endpoint are consumed by its listener, their
 * durations are learned, and its health shows Harbinger.
 */
@WithBroker
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationIT {

  private static final String QUEUE = TestBroker.unique("sample.jobs");
  private static final String REPORTS = TestBroker.unique("sample.reports");

  @LocalServerPort int port;
  @Autowired Predictor predictor;

  /** The 3.x broker, found as the test extension finds it. */
  @DynamicPropertySource
  static void rabbit(DynamicPropertyRegistry registry) throws Exception {
    ConnectionFactory f = factory();
    registry.add("spring.rabbitmq.host", f::getHost);
    registry.add("spring.rabbitmq.port", f::getPort);
    registry.add("spring.rabbitmq.username", f::getUsername);
    registry.add("spring.rabbitmq.password", f::getPassword);
    registry.add("spring.rabbitmq.virtual-host", f::getVirtualHost);
    registry.add("sample.queue", () -> QUEUE);
    registry.add("harbinger.reports-exchange", () -> REPORTS);
  }

  private static ConnectionFactory factory() throws Exception {
    BrokerKind kind = BrokerKind.RABBITMQ_3;
    String uri = System.getProperty(kind.uriVariable(), System.getenv(kind.uriVariable()));
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(uri == null ? kind.defaultUri() : uri);
    return f;
  }

  @AfterAll
  static void cleanUp() throws Exception {
    try (var c = factory().newConnection("harbinger-sample-cleanup")) {
      Quietly.deleteQueue(c, QUEUE);
      Quietly.deleteExchange(c, REPORTS);
    }
  }

  private String call(String method, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .method(method, HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isLessThan(300);
    return r.body();
  }

  @Test
  void postedJobs_areConsumedAndLearned_andHealthShowsHarbinger(TestBroker broker)
      throws Exception {
    assertThat(call("POST", "/jobs?type=reserve&count=8")).contains("8 reserve job(s) published");
    call("POST", "/jobs?type=export&count=2");

    ProgressWait learning =
        ProgressWait.on("observations accepted", () -> predictor.stats().accepted());
    learning.until(
        "8 reserve and 2 export jobs consumed",
        () -> {
          String jobs = call("GET", "/jobs");
          return jobs.contains("\"reserve\":8") && jobs.contains("\"export\":2");
        });
    learning.until(
        "8 reserve and 2 export jobs learned",
        () -> {
          String user = broker.factory().getUsername();
          return observations(user, "reserve") == 8 && observations(user, "export") == 2;
        });
    assertThat(call("GET", "/actuator/health"))
        .contains("\"harbinger\"")
        .contains("\"router\":\"embedded\"")
        .contains("\"published\":10")
        .contains("\"learning\":{\"reordering\":false,\"trustedKeys\":0,\"learningKeys\":2");
  }

  private long observations(String user, String jobType) {
    return predictor.keyStats(Keys.of(user, jobType)).map(s -> s.observations()).orElse(0L);
  }
}
