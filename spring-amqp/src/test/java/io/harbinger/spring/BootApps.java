package io.harbinger.spring;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.proto.v1.DurationReport;
import io.harbinger.proto.v1.ReportBatch;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts Boot applications against a test broker, and listens to the reports they send. */
final class BootApps {

  private BootApps() {}

  /** Returns the {@code spring.rabbitmq.*} properties of a broker. */
  static List<String> rabbitProperties(TestBroker broker) {
    ConnectionFactory f = broker.factory();
    return List.of(
        "spring.rabbitmq.host=" + f.getHost(),
        "spring.rabbitmq.port=" + f.getPort(),
        "spring.rabbitmq.username=" + f.getUsername(),
        "spring.rabbitmq.password=" + f.getPassword(),
        "spring.rabbitmq.virtual-host=" + f.getVirtualHost());
  }

  /**
   * Starts a Boot application, not a web one.
   *
   * @param broker the broker its connection factory connects to
   * @param app the application's configuration class
   * @param properties further properties, {@code name=value}
   * @return the running context
   */
  static ConfigurableApplicationContext start(
      TestBroker broker, Class<?> app, String... properties) {
    List<String> all = new ArrayList<>(rabbitProperties(broker));
    all.add("spring.main.web-application-type=none");
    all.add("spring.main.banner-mode=off");
    all.addAll(List.of(properties));
    return new SpringApplicationBuilder(app).properties(all.toArray(String[]::new)).run();
  }

  /** The reports published to one exchange, received through a queue of the test's own. */
  static final class Reports implements AutoCloseable {
    private final Connection connection;
    private final String exchange;
    private final List<DurationReport> received = new CopyOnWriteArrayList<>();

    Reports(TestBroker broker, String exchange) throws Exception {
      this.exchange = exchange;
      connection = broker.newConnection("harbinger-it-reports-" + exchange);
      Channel ch = connection.createChannel();
      ch.exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true);
      String q = ch.queueDeclare("", false, true, true, null).getQueue();
      ch.queueBind(q, exchange, "");
      ch.basicConsume(
          q,
          true,
          (tag, d) -> received.addAll(ReportBatch.parseFrom(d.getBody()).getReportsList()),
          tag -> {});
    }

    List<DurationReport> received() {
      return received;
    }

    List<DurationReport> ofJobType(String jobType) {
      return received.stream().filter(r -> r.getJobType().equals(jobType)).toList();
    }

    @Override
    public void close() {
      Quietly.deleteExchange(connection, exchange);
      Quietly.close(connection);
    }
  }
}
