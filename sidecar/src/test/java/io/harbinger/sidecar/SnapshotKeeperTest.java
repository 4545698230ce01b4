package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A refused snapshot never costs the good rollback copy, and restore falls back to it. */
class SnapshotKeeperTest {

  private static final String CONTEXT = "sidecar|job-type-header=x-job-type";

  @TempDir Path dir;

  static Stream<Arguments> corruptions() {
    return Stream.of(
        Arguments.of("a flipped byte", (UnaryOperator<byte[]>) SnapshotKeeperTest::flip),
        Arguments.of("truncated", (UnaryOperator<byte[]>) b -> Arrays.copyOf(b, b.length / 2)),
        Arguments.of("empty", (UnaryOperator<byte[]>) b -> new byte[0]),
        Arguments.of(
            "not a snapshot",
            (UnaryOperator<byte[]>) b -> "garbage".getBytes(StandardCharsets.US_ASCII)),
        Arguments.of("a wrong version", (UnaryOperator<byte[]>) SnapshotKeeperTest::wrongVersion));
  }

  private static byte[] flip(byte[] b) {
    byte[] c = b.clone();
    c[c.length / 3] ^= 0x55;
    return c;
  }

  private static byte[] wrongVersion(byte[] b) {
    byte[] c = b.clone();
    c[11] = 99; // the version int follows the 8-byte magic
    return c;
  }

  private static HistogramPredictor learned(int reports) {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), Ticker.SYSTEM, Mode.PREDICTIVE);
    for (int i = 0; i < reports; i++) {
      p.observe(Keys.of("shop", "job-" + (i % 5)), 2_000_000);
    }
    return p;
  }

  private SnapshotKeeper keeper(Path file) {
    return new SnapshotKeeper(Optional.of(file), CONTEXT, Clock.systemUTC());
  }

  private static HistogramPredictor readBack(Path file) throws Exception {
    return HistogramPredictor.restore(
        file, CONTEXT, PredictorConfig.defaults(), Ticker.SYSTEM, Mode.PREDICTIVE);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corruptions")
  void refusedSnapshot_restoresThePreviousOne_andNoSaveOverwritesItWithTheRefusedFile(
      String corruption, UnaryOperator<byte[]> corrupt) throws Exception {
    Path file = dir.resolve("sidecar.snap");
    Path prev = dir.resolve("sidecar.snap.prev");
    SnapshotKeeper first = keeper(file);
    first.save(learned(100)); // becomes the rollback copy
    first.save(learned(200));
    Files.write(file, corrupt.apply(Files.readAllBytes(file)));

    SnapshotKeeper second = keeper(file);
    HistogramPredictor restored =
        second.restore(PredictorConfig.defaults(), Ticker.SYSTEM, Mode.PREDICTIVE);

    assertThat(restored.stats().keys()).as(corruption).isEqualTo(5);
    assertThat(second.restoreStatus()).contains("restored from sidecar.snap.prev");
    assertThat(second.restoreRejected()).isTrue();
    assertThat(dir.resolve("sidecar.snap.refused")).exists();

    second.save(restored);
    assertThat(readBack(prev).stats().keys()).as("rollback copy after the first save").isEqualTo(5);
    second.save(restored);
    assertThat(readBack(prev).stats().keys())
        .as("rollback copy after the second save")
        .isEqualTo(5);
    assertThat(readBack(file).stats().keys()).isEqualTo(5);
  }
}
