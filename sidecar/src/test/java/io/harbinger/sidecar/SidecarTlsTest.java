package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.harbinger.proto.v1.ListKeysRequest;
import io.harbinger.proto.v1.SidecarGrpc;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sidecar serving gRPC over TLS with a self-signed certificate made by the JDK's keytool. */
class SidecarTlsTest {

  @TempDir Path dir;

  @Test
  void tls_clientTrustingTheCertificateIsServed_plaintextClientIsNot() throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    selfSigned(cert, key);
    SidecarConfig config =
        SidecarTestSupport.config(
            dir, "grpc.tls-cert-chain", cert.toString(), "grpc.tls-private-key", key.toString());
    try (Sidecar sidecar = Sidecar.start(config, Sidecar.serverBuilder(config), false)) {
      sidecar.reports().ingest(SidecarTestSupport.threeTypes(30));
      ManagedChannel tls =
          Grpc.newChannelBuilderForAddress(
                  "localhost",
                  sidecar.grpcPort(),
                  TlsChannelCredentials.newBuilder().trustManager(cert.toFile()).build())
              .build();
      ManagedChannel plain =
          Grpc.newChannelBuilderForAddress(
                  "localhost", sidecar.grpcPort(), InsecureChannelCredentials.create())
              .build();
      try {
        assertThat(
                SidecarGrpc.newBlockingStub(tls)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .listKeys(ListKeysRequest.getDefaultInstance())
                    .getTotal())
            .isEqualTo(3);
        assertThatThrownBy(
                () ->
                    SidecarGrpc.newBlockingStub(plain)
                        .withDeadlineAfter(5, TimeUnit.SECONDS)
                        .listKeys(ListKeysRequest.getDefaultInstance()))
            .hasMessageContaining("UNAVAILABLE");
      } finally {
        tls.shutdownNow();
        plain.shutdownNow();
      }
    }
  }

  private void selfSigned(Path certPem, Path keyPem) throws Exception {
    Path store = dir.resolve("store.p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p =
        new ProcessBuilder(
                List.of(
                    keytool,
                    "-genkeypair",
                    "-alias",
                    "sidecar",
                    "-keyalg",
                    "RSA",
                    "-keysize",
                    "2048",
                    "-validity",
                    "2",
                    "-dname",
                    "CN=localhost",
                    "-ext",
                    "SAN=dns:localhost,ip:127.0.0.1",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    store.toString(),
                    "-storepass",
                    "changeit",
                    "-keypass",
                    "changeit"))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(output).isZero();
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(store.toFile())) {
      ks.load(in, "changeit".toCharArray());
    }
    PrivateKey privateKey = (PrivateKey) ks.getKey("sidecar", "changeit".toCharArray());
    Certificate certificate = ks.getCertificate("sidecar");
    Files.writeString(certPem, pem("CERTIFICATE", certificate.getEncoded()));
    Files.writeString(keyPem, pem("PRIVATE KEY", privateKey.getEncoded()));
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
