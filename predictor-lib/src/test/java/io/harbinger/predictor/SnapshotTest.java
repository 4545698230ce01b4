package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotTest {

  private static final double MS = 1_000_000;
  private static final String CONTEXT = "key=x-job-type|scoped";

  @TempDir Path dir;

  private final ManualTicker ticker = new ManualTicker(1_000_000_000L);

  private HistogramPredictor learned() {
    HistogramPredictor p =
        new HistogramPredictor(PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);
    for (int i = 0; i < 300; i++) {
      p.observe(Keys.of("shop", "fast"), 2 * MS * (1 + (i % 7) / 10.0));
      p.observe(Keys.of("shop", "mid"), 40 * MS);
      p.observe(Keys.of("shop", "slow"), 2000 * MS);
      if (i % 50 == 0) {
        p.observeCensored(Keys.of("shop", "slow"), -1);
      }
      p.observe(Keys.of("shop", "bimodal"), i % 12 == 0 ? 3000 * MS : 3 * MS);
    }
    ticker.advance(Duration.ofSeconds(1));
    p.observe(Keys.of("shop", "barely_seen"), 5 * MS);
    return p;
  }

  private HistogramPredictor restore(Path file, PredictorConfig config, Ticker t)
      throws SnapshotException {
    return HistogramPredictor.restore(file, CONTEXT, config, t, Mode.PREDICTIVE);
  }

  @Test
  void save_thenRestore_givesTheSamePredictionsAndStatistics() throws IOException {
    HistogramPredictor original = learned();
    Path file = dir.resolve("predictor.snap");
    original.save(file, CONTEXT);

    HistogramPredictor restored = restore(file, PredictorConfig.defaults(), ticker);
    assertThat(restored.boundaries()).isEqualTo(original.boundaries());
    assertThat(restored.keyStats()).containsExactlyInAnyOrderElementsOf(original.keyStats());
    for (String job : List.of("fast", "mid", "slow", "bimodal", "barely_seen", "unknown")) {
      String key = Keys.of("shop", job);
      // The same placement; the routed level of an untrusted key also depends on the global
      // safeguard, whose memory is not saved and which judges again after its minimum of reports.
      Prediction r = restored.predict(key);
      Prediction o = original.predict(key);
      assertThat(r)
          .as(job)
          .extracting(Prediction::predictedLevel, Prediction::outcome, Prediction::estimateNanos)
          .containsExactly(o.predictedLevel(), o.outcome(), o.estimateNanos());
      if (!o.outcome().isUntrusted()) {
        assertThat(r.level()).as(job).isEqualTo(o.level());
      }
    }
    assertThat(restored.stats().pooledObservations())
        .isEqualTo(original.stats().pooledObservations());
  }

  @Test
  void save_writesOwnerOnlyFileAndKeepsThePreviousAsRollback() throws IOException {
    Path file = dir.resolve("predictor.snap");
    HistogramPredictor p = learned();
    p.save(file, CONTEXT);
    byte[] first = Files.readAllBytes(file);
    p.observe(Keys.of("shop", "fast"), 2 * MS);
    p.save(file, CONTEXT);
    Path prev = dir.resolve("predictor.snap.prev");
    assertThat(Files.readAllBytes(prev)).isEqualTo(first);
    assertThat(Files.getPosixFilePermissions(file))
        .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    assertThat(dir.resolve("predictor.snap.tmp")).doesNotExist();

    // The current file gets corrupted: it is refused, and the rollback copy still loads.
    byte[] corrupt = Files.readAllBytes(file);
    corrupt[corrupt.length / 2] ^= 0x10;
    Files.write(file, corrupt);
    assertThatThrownBy(() -> restore(file, PredictorConfig.defaults(), ticker))
        .isInstanceOf(SnapshotException.class)
        .extracting(e -> ((SnapshotException) e).reason())
        .isEqualTo(SnapshotException.Reason.CHECKSUM_MISMATCH);
    assertThat(restore(prev, PredictorConfig.defaults(), ticker).stats().keys()).isEqualTo(5);
  }

  @Test
  void restore_truncatedFile_isRefusedAsTruncated() throws IOException {
    Path file = dir.resolve("predictor.snap");
    learned().save(file, CONTEXT);
    byte[] bytes = Files.readAllBytes(file);
    for (int length : new int[] {0, 5, 15, bytes.length / 2, bytes.length - 1}) {
      Files.write(file, Arrays.copyOf(bytes, length));
      assertThat(reasonOf(file, PredictorConfig.defaults()))
          .as("length %d", length)
          .isEqualTo(SnapshotException.Reason.TRUNCATED);
    }
  }

  @Test
  void restore_everySingleBitFlipInTheHeader_isRefused() throws IOException {
    Path file = dir.resolve("predictor.snap");
    learned().save(file, CONTEXT);
    byte[] bytes = Files.readAllBytes(file);
    for (int bit = 0; bit < 8 * 64; bit += 3) {
      byte[] flipped = bytes.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      Files.write(file, flipped);
      assertThatThrownBy(() -> restore(file, PredictorConfig.defaults(), ticker))
          .as("bit %d", bit)
          .isInstanceOf(SnapshotException.class);
    }
  }

  @Test
  void restore_wrongVersion_isRefusedWithTheVersion() throws IOException {
    Path file = dir.resolve("predictor.snap");
    learned().save(file, CONTEXT);
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer.wrap(bytes).putInt(8, 2);
    resign(bytes);
    Files.write(file, bytes);
    assertThatThrownBy(() -> restore(file, PredictorConfig.defaults(), ticker))
        .isInstanceOf(SnapshotException.class)
        .hasMessageContaining("version 2")
        .extracting(e -> ((SnapshotException) e).reason())
        .isEqualTo(SnapshotException.Reason.WRONG_VERSION);
  }

  @Test
  void restore_foreignConfiguration_isRefused() throws IOException {
    Path file = dir.resolve("predictor.snap");
    learned().save(file, CONTEXT);
    assertThat(reasonOf(file, PredictorConfig.builder().levels(5).build()))
        .isEqualTo(SnapshotException.Reason.FOREIGN_CONFIGURATION);
    assertThat(reasonOf(file, PredictorConfig.builder().sizeBins(true).build()))
        .isEqualTo(SnapshotException.Reason.FOREIGN_CONFIGURATION);
    assertThatThrownBy(
            () ->
                HistogramPredictor.restore(
                    file, "key=x-type|scoped", PredictorConfig.defaults(), ticker, Mode.PREDICTIVE))
        .hasMessageContaining("levels=3");
  }

  @Test
  void restore_absentOrForeignFile_isRefusedWithItsReason() throws IOException {
    assertThat(reasonOf(dir.resolve("missing.snap"), PredictorConfig.defaults()))
        .isEqualTo(SnapshotException.Reason.ABSENT);
    Path text = dir.resolve("notes.txt");
    Files.writeString(text, "this is not a snapshot, just a long enough text file");
    assertThat(reasonOf(text, PredictorConfig.defaults()))
        .isEqualTo(SnapshotException.Reason.NOT_A_SNAPSHOT);
  }

  @Test
  void restore_validChecksumButImpossibleValues_isRefused() throws IOException {
    Path file = dir.resolve("predictor.snap");
    learned().save(file, CONTEXT);
    byte[] bytes = Files.readAllBytes(file);
    // The first boundary sits right after the fingerprint, the save time, the flag and the
    // sequence.
    int printLength = ByteBuffer.wrap(bytes).getInt(16);
    int firstBoundary = 20 + printLength + 8 + 1 + 8 + 4;
    ByteBuffer.wrap(bytes).putDouble(firstBoundary, -5.0);
    resign(bytes);
    Files.write(file, bytes);
    assertThatThrownBy(() -> restore(file, PredictorConfig.defaults(), ticker))
        .hasMessageContaining("strictly increasing")
        .extracting(e -> ((SnapshotException) e).reason())
        .isEqualTo(SnapshotException.Reason.INVALID_CONTENT);
  }

  @Test
  void restore_keyAgesAreRelativeToTheSave_soStalenessSurvivesARestart() throws IOException {
    HistogramPredictor p = learned();
    String idle = Keys.of("shop", "idle_before_restart");
    for (int i = 0; i < 30; i++) {
      p.observe(idle, 2 * MS);
    }
    ticker.advance(Duration.ofMinutes(20));
    for (String job : List.of("fast", "mid", "slow")) {
      p.observe(Keys.of("shop", job), 2 * MS);
    }
    Path file = dir.resolve("predictor.snap");
    p.save(file, CONTEXT);

    ManualTicker later = new ManualTicker(1_000_000_000L);
    later.advance(Duration.ofDays(3)); // a different process with a different clock origin
    // Staleness as in seed paper Table 1 (the default has none).
    PredictorConfig tableOne = PredictorConfig.builder().staleAfter(Duration.ofMinutes(30)).build();
    HistogramPredictor restored = restore(file, tableOne, later);
    assertThat(restored.keyStats(idle).orElseThrow().idle()).isEqualTo(Duration.ofMinutes(20));
    later.advance(Duration.ofMinutes(11));
    assertThat(restored.predict(idle).outcome()).isEqualTo(Outcome.STALE);
    assertThat(restored.predict(Keys.of("shop", "mid")).outcome()).isEqualTo(Outcome.PREDICTED);
  }

  @Test
  void restore_moreKeysThanTheNewCapacity_keepsTheMostRecent() throws IOException {
    HistogramPredictor p = learned();
    Path file = dir.resolve("predictor.snap");
    p.save(file, CONTEXT);
    // Same levels and layout, room for one key: the most recently active key survives.
    PredictorConfig small = PredictorConfig.builder().maxKeys(1).build();
    HistogramPredictor restored =
        SnapshotCodec.read(
            file,
            CONTEXT,
            small,
            PredictorTuning.builder().shards(1).build(),
            ticker,
            Mode.PREDICTIVE);
    assertThat(restored.keyStats()).hasSize(1);
    assertThat(restored.keyStats().get(0).key()).isEqualTo(Keys.of("shop", "barely_seen"));
  }

  private SnapshotException.Reason reasonOf(Path file, PredictorConfig config) {
    try {
      restore(file, config, ticker);
    } catch (SnapshotException e) {
      return e.reason();
    }
    throw new AssertionError("snapshot was accepted: " + file);
  }

  private static void resign(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
  }

  @Test
  void recover_refusedSnapshot_movesItAsideAndRestoresThePreviousOne() throws IOException {
    Path file = dir.resolve("predictor.snap");
    HistogramPredictor first = learned();
    first.save(file, CONTEXT);
    first.observe(Keys.of("shop", "newer"), 5 * MS);
    first.save(file, CONTEXT); // the first save is now predictor.snap.prev
    Files.write(file, Arrays.copyOf(Files.readAllBytes(file), 100));

    SnapshotRecovery r =
        HistogramPredictor.recover(
            file, CONTEXT, PredictorConfig.defaults(), ticker, Mode.PREDICTIVE);

    assertThat(r.rolledBack()).isTrue();
    assertThat(r.restoredFrom()).isEqualTo(dir.resolve("predictor.snap.prev"));
    assertThat(r.refused())
        .singleElement()
        .extracting(SnapshotException::reason)
        .isEqualTo(SnapshotException.Reason.TRUNCATED);
    assertThat(r.predictor().keyStats(Keys.of("shop", "fast"))).isPresent();
    assertThat(r.predictor().keyStats(Keys.of("shop", "newer"))).isEmpty();
    assertThat(file).doesNotExist();
    assertThat(dir.resolve("predictor.snap.refused")).hasSize(100);

    r.predictor().save(file, CONTEXT);
    assertThat(
            restore(dir.resolve("predictor.snap.prev"), PredictorConfig.defaults(), ticker)
                .keyStats(Keys.of("shop", "fast")))
        .isPresent();
  }

  @Test
  void recover_bothRefused_throwsTheSnapshotsReasonWithThePreviousOnesAttached()
      throws IOException {
    Path file = dir.resolve("predictor.snap");
    Files.writeString(file, "this is not a predictor snapshot at all");
    Files.writeString(dir.resolve("predictor.snap.prev"), "neither is this one, it is plain text");

    assertThatThrownBy(
            () ->
                HistogramPredictor.recover(
                    file, CONTEXT, PredictorConfig.defaults(), ticker, Mode.PREDICTIVE))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.NOT_A_SNAPSHOT);
              assertThat(e.getSuppressed()).hasSize(1);
            });
  }

  @Test
  void recover_nothingThere_isAbsent() {
    assertThatThrownBy(
            () ->
                HistogramPredictor.recover(
                    dir.resolve("none.snap"),
                    CONTEXT,
                    PredictorConfig.defaults(),
                    ticker,
                    Mode.PREDICTIVE))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.ABSENT));
  }
}
