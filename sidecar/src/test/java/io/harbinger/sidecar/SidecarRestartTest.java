package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.inprocess.InProcessServerBuilder;
import io.harbinger.predictor.Keys;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarRestartTest {

  @TempDir Path dir;

  private Sidecar start(String... overrides) throws Exception {
    return Sidecar.start(
        SidecarTestSupport.config(dir, overrides),
        InProcessServerBuilder.forName(InProcessServerBuilder.generateName()),
        false);
  }

  @Test
  void restart_restoresTheLearnedLevelsFromTheShutdownSnapshot() throws Exception {
    String fast = Keys.of("shop", "reserve_inventory");
    try (Sidecar first = start()) {
      first.reports().ingest(SidecarTestSupport.threeTypes(40));
      assertThat(first.predictor().predict(fast).level()).isZero();
    }
    assertThat(dir.resolve("sidecar.snap")).exists();
    try (Sidecar second = start()) {
      assertThat(second.snapshots().restoreStatus()).isEqualTo("restored");
      assertThat(second.predictor().predict(fast).isPredicted()).isTrue();
      assertThat(second.predictor().predict(fast).level()).isZero();
      // The route table is filled by its first sweep, on the route thread.
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(5))
          .until(() -> second.routes().entry(fast).isPresent());
    }
  }

  @Test
  void restart_withAnotherConfiguration_startsColdAndSaysWhy() throws Exception {
    try (Sidecar first = start()) {
      first.reports().ingest(SidecarTestSupport.threeTypes(40));
    }
    try (Sidecar second = start("predictor.levels", "5")) {
      assertThat(second.snapshots().restoreStatus()).startsWith("rejected (FOREIGN_CONFIGURATION)");
      assertThat(second.predictor().stats().keys()).isZero();
      assertThat(second.metrics().scrape()).contains("harbinger_snapshot_restore_rejected 1.0");
    }
  }

  @Test
  void restart_withACorruptSnapshot_startsCold() throws Exception {
    try (Sidecar first = start()) {
      first.reports().ingest(SidecarTestSupport.threeTypes(40));
    }
    Path snap = dir.resolve("sidecar.snap");
    byte[] bytes = Files.readAllBytes(snap);
    bytes[bytes.length / 3] ^= 0x55;
    Files.write(snap, bytes);
    try (Sidecar second = start()) {
      assertThat(second.snapshots().restoreStatus()).startsWith("rejected (CHECKSUM_MISMATCH)");
      assertThat(second.predictor().stats().keys()).isZero();
    }
  }
}
