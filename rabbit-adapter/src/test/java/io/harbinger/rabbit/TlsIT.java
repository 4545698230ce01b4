package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.testing.PrivateNode;
import io.harbinger.testing.ProgressWait;
import io.harbinger.testing.Quietly;
import io.harbinger.testing.TestBroker;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wrapper, the report publisher and the embedded router over amqps, on a RabbitMQ node of the
 * test's own with a TLS listener on loopback and a self-signed certificate made by the JDK's
 * keytool for the test; the client verifies the certificate and the host name.
 */
class TlsIT {

  private static final char[] PASSWORD = "harbinger-it".toCharArray();

  @TempDir static Path certs;

  private static PrivateNode node;
  private static int tlsPort;
  private static SSLContext ssl;

  @BeforeAll
  static void startNode() throws Exception {
    Path keystore = certs.resolve("server.p12");
    keytool(
        "-genkeypair",
        "-alias",
        "rabbit",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=localhost",
        "-ext",
        "SAN=ip:127.0.0.1,dns:localhost",
        "-storetype",
        "PKCS12",
        "-keystore",
        keystore.toString(),
        "-storepass",
        new String(PASSWORD));
    KeyStore server = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(keystore.toFile())) {
      server.load(in, PASSWORD);
    }
    Certificate cert = server.getCertificate("rabbit");
    Path certPem = certs.resolve("server.pem");
    Path keyPem = certs.resolve("server.key");
    Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
    Files.writeString(keyPem, pem("PRIVATE KEY", server.getKey("rabbit", PASSWORD).getEncoded()));

    tlsPort = freePort();
    node =
        PrivateNode.builder()
            .config("listeners.ssl.default", "127.0.0.1:" + tlsPort)
            .config("ssl_options.cacertfile", certPem.toString())
            .config("ssl_options.certfile", certPem.toString())
            .config("ssl_options.keyfile", keyPem.toString())
            .config("ssl_options.verify", "verify_none")
            .config("ssl_options.fail_if_no_peer_cert", "false")
            .start();

    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("rabbit", cert);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
    tmf.init(trust);
    ssl = SSLContext.getInstance("TLSv1.2");
    ssl.init(null, tmf.getTrustManagers(), null);
  }

  @AfterAll
  static void stopNode() {
    Quietly.close(node);
  }

  private static void keytool(String... args) throws Exception {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command = new java.util.ArrayList<>(List.of(keytool.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("keytool failed: " + out);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** A factory for the node's TLS listener, verifying the certificate and the host name. */
  private static ConnectionFactory tlsFactory() {
    ConnectionFactory f = node.factory();
    f.setPort(tlsPort);
    f.useSslProtocol(ssl);
    f.enableHostnameVerification();
    return f;
  }

  @Test
  void overAmqps_wrapChecksTheUser_publishesAndConsumes_reportsArrive_andTheRouterLearns()
      throws Exception {
    ConnectionFactory factory = tlsFactory();
    String queue = TestBroker.unique("tls");
    String exchange = TestBroker.unique("reports");
    HistogramPredictor predictor = new HistogramPredictor(PredictorConfig.defaults());
    EmbeddedRouter router = EmbeddedRouter.builder(factory, predictor).exchange(exchange).start();
    ReportPublisher reports =
        ReportPublisher.builder(factory)
            .exchange(exchange)
            .flushInterval(java.time.Duration.ofMillis(20))
            .start();
    Connection app = factory.newConnection("harbinger-it-tls");
    try {
      assertThat(app.getServerProperties()).containsKey("version");
      assertThatThrownBy(
              () ->
                  PredictiveChannels.wrap(
                      app.createChannel(), ChannelOptions.builder("mallory").build(), factory))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("user 'mallory' is not the user");
      try (Channel admin = app.createChannel()) {
        PriorityQueues.declare(admin, queue, 3);
      }
      Channel producer =
          PredictiveChannels.wrap(
              app.createChannel(), ChannelOptions.builder("guest").router(router).build(), factory);
      producer.confirmSelect();
      for (int i = 0; i < 50; i++) {
        producer.basicPublish(
            "",
            queue,
            new AMQP.BasicProperties.Builder().headers(Map.of("x-job-type", "tls")).build(),
            new byte[16]);
      }
      producer.waitForConfirmsOrDie(10_000);

      List<String> userIds = new CopyOnWriteArrayList<>();
      Channel consumer =
          PredictiveChannels.wrap(
              app.createChannel(), ChannelOptions.builder("guest").reports(reports).build());
      consumer.basicQos(1);
      consumer.basicConsume(
          queue,
          false,
          (tag, d) -> {
            userIds.add(d.getProperties().getUserId());
            consumer.basicAck(d.getEnvelope().getDeliveryTag(), false);
          },
          tag -> {});

      ProgressWait.on("messages consumed", userIds::size).untilAtLeast(50);
      ProgressWait.on("reports learned", () -> router.ingestStats().learned()).untilAtLeast(50);
      assertThat(userIds).hasSize(50).containsOnly("guest");
      assertThat(reports.sent()).isEqualTo(50);
      assertThat(router.ingestStats().learned()).isEqualTo(50);
      assertThat(predictor.keyStats(Keys.of("guest", "tls"))).isPresent();
      assertThat(router.consuming()).isTrue();
    } finally {
      Quietly.close(reports);
      Quietly.close(router);
      try (Channel ch = app.createChannel()) {
        ch.queueDelete(queue);
        ch.exchangeDelete(exchange);
      } catch (IOException | RuntimeException e) {
        // Left on the private node, which the class deletes.
      }
      Quietly.close(app);
    }
  }

  @Test
  void plainAmqpClient_againstTheTlsListener_isRefused_soTheTestReallyUsesTls() {
    ConnectionFactory plain = node.factory();
    plain.setPort(tlsPort);
    plain.setConnectionTimeout(3_000);
    plain.setHandshakeTimeout(3_000);
    assertThatThrownBy(() -> plain.newConnection("harbinger-it-plain")).isNotNull();
  }
}
