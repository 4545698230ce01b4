package io.harbinger.experiments.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointsTest {

  @Test
  void fromEnvironment_nothingSet_givesTheLoopbackServicesAndNothingRunning() {
    Endpoints e = Endpoints.fromEnvironment(Map.of());
    assertThat(e.rabbitmq()).hasToString(Endpoints.DEFAULT_RABBITMQ);
    assertThat(e.redis()).hasToString(Endpoints.DEFAULT_REDIS);
    assertThat(e.sidecar()).isEmpty();
    assertThat(e.broker()).isEmpty();
    assertThat(e.sidecarReportsExchange()).isEqualTo("harbinger.reports");
    ConnectionFactory f = e.rabbitFactory();
    assertThat(f.getUsername()).isEqualTo("guest");
    assertThat(f.getPassword()).isEqualTo("guest");
  }

  @Test
  void rabbitFactory_passwordWithAtSlashAndPercentGivenApart_reachesTheFactoryAsIs() {
    Endpoints e =
        Endpoints.fromEnvironment(
            Map.of(
                "RABBITMQ_URI", "amqp://rabbitmq:5672/%2F",
                "RABBITMQ_USERNAME", "harbinger",
                "RABBITMQ_PASSWORD", "p@ss/w%rd"));
    ConnectionFactory f = e.rabbitFactory();
    assertThat(f.getHost()).isEqualTo("rabbitmq");
    assertThat(f.getVirtualHost()).isEqualTo("/");
    assertThat(f.getUsername()).isEqualTo("harbinger");
    assertThat(f.getPassword()).isEqualTo("p@ss/w%rd");
  }

  @Test
  void fromEnvironment_uriWithAnUnencodedPercent_namesTheVariableWithoutThePassword() {
    assertThatThrownBy(
            () -> Endpoints.fromEnvironment(Map.of("RABBITMQ_URI", "amqp://u:p%zz@host:5672/%2F")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("RABBITMQ_URI must be a URI")
        .hasMessageContaining("RABBITMQ_PASSWORD")
        .hasMessageNotContaining("p%zz");
  }

  @Test
  void fromEnvironment_runningSidecarAndBroker_areTakenFromTheirVariables() {
    Endpoints e =
        Endpoints.fromEnvironment(
            Map.of(
                "HARBINGER_SIDECAR_ADDRESS", "127.0.0.1:50151",
                "HARBINGER_SIDECAR_REPORTS_EXCHANGE", "compose.reports",
                "HARBINGER_BROKER_ADDRESS", "broker:50061"));
    assertThat(e.sidecar()).contains("127.0.0.1:50151");
    assertThat(e.sidecarReportsExchange()).isEqualTo("compose.reports");
    assertThat(e.broker()).contains("broker:50061");
    assertThat(e.withExternal("sidecar:50051", null).sidecar()).contains("sidecar:50051");
    assertThat(e.withExternal(null, null).broker()).contains("broker:50061");
  }

  @Test
  void fromEnvironment_addressWithoutPort_namesTheAddress() {
    assertThatThrownBy(
            () -> Endpoints.fromEnvironment(Map.of("HARBINGER_BROKER_ADDRESS", "broker")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the broker address must be host:port with a port in [1, 65535]: broker");
    assertThatThrownBy(
            () -> Endpoints.fromEnvironment(Map.of("HARBINGER_SIDECAR_ADDRESS", "sidecar:0")))
        .hasMessageContaining("the sidecar address must be host:port");
  }

  @Test
  void redacted_uriWithPassword_hidesIt() {
    assertThat(Endpoints.redacted(java.net.URI.create("amqp://harbinger:secret@rabbitmq:5672/%2F")))
        .isEqualTo("amqp://harbinger:***@rabbitmq:5672/%2F");
  }
}
