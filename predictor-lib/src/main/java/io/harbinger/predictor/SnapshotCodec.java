package io.harbinger.predictor;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Reads and writes predictor snapshots.
 *
 * <p>Format version 1, big-endian: the 8-byte magic {@code HBPRDSNP}; the version (int); the total
 * length of the file in bytes (int); the fingerprint (an int length and UTF-8 bytes: histogram
 * layout, levels, size-bin setting and the application context); the save time in epoch
 * milliseconds (long, informational); the boundaries (a byte flag, then sequence long, count int
 * and that many doubles); the pooled histogram; the key count (int) and each key (a short length
 * and UTF-8 bytes, its histogram, its idle time and its time since last decay in nanoseconds
 * relative to the save, and its held level as an int); then a CRC-32C of every preceding byte
 * (int). A histogram is its {@link HistogramLayout#BIN_COUNT} float bins, then scale, total, sum
 * and censored as doubles, then the observation and saturation counts as longs.
 *
 * <p>Implementation notes (seed paper section 3.9: atomic, versioned snapshots with a rollback
 * copy): the file is written to {@code FILE.tmp} with mode 0600 and forced to disk; the current
 * file is hard-linked to {@code FILE.prev} (the rollback copy), the temporary file is renamed over
 * the current one, and the directory is forced, so at every moment {@code FILE} is a complete
 * snapshot. Reading validates the whole file into staging objects before a predictor is built, so a
 * refused file changes nothing. Idle times are stored relative to the save so that staleness
 * survives a restart. The producers' parts of the pooled histogram and their long-run shares
 * ({@link ProducerWeights}) are not saved, so a file written before they existed reads the same: a
 * restore rebuilds them from the saved keys.
 */
final class SnapshotCodec {

  static final byte[] MAGIC = "HBPRDSNP".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final int HEADER_BYTES = 8 + 4 + 4;
  static final long MAX_FILE_BYTES = 1L << 30;
  static final int MAX_CONTEXT_CHARS = 1024;

  private SnapshotCodec() {}

  static String fingerprint(PredictorConfig config, String context) {
    return "layout="
        + (long) HistogramLayout.MIN_NANOS
        + "ns/"
        + HistogramLayout.BINS_PER_OCTAVE
        + "/"
        + HistogramLayout.OCTAVES
        + "|levels="
        + config.levels()
        + "|sizeBins="
        + config.sizeBins()
        + "|context="
        + context;
  }

  static void write(HistogramPredictor predictor, Path file, String context) throws IOException {
    checkContext(context);
    byte[] bytes = encode(predictor, context);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Path prev = file.resolveSibling(file.getFileName() + ".prev");
    Files.deleteIfExists(tmp);
    try {
      Files.createFile(
          tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tmp);
    }
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    }
    if (Files.exists(file)) {
      Files.deleteIfExists(prev);
      try {
        Files.createLink(prev, file);
      } catch (UnsupportedOperationException | FileAlreadyExistsException e) {
        Files.copy(file, prev, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    forceDirectory(file.toAbsolutePath().getParent());
  }

  private static void forceDirectory(Path dir) {
    if (dir == null) {
      return;
    }
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some platforms cannot open a directory for syncing; the rename itself is still atomic.
    }
  }

  static byte[] encode(HistogramPredictor predictor, String context) throws IOException {
    long now = predictor.ticker().nanos();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(MAGIC);
    out.writeInt(VERSION);
    out.writeInt(0); // total length, patched below
    byte[] print = fingerprint(predictor.config(), context).getBytes(StandardCharsets.UTF_8);
    out.writeInt(print.length);
    out.write(print);
    out.writeLong(System.currentTimeMillis());

    PooledHistogram pooled = predictor.pooled();
    DurationHistogram pooledCopy = new DurationHistogram();
    Boundaries boundaries;
    synchronized (pooled) {
      pooled.copyTo(pooledCopy);
      boundaries = pooled.boundaries();
    }
    if (boundaries == null) {
      out.writeByte(0);
    } else {
      out.writeByte(1);
      out.writeLong(boundaries.sequence());
      out.writeInt(boundaries.levels() - 1);
      for (int j = 0; j < boundaries.levels() - 1; j++) {
        out.writeDouble(boundaries.nanos(j));
      }
    }
    writeHistogram(out, pooledCopy);

    ByteArrayOutputStream keyBytes = new ByteArrayOutputStream(1 << 16);
    DataOutputStream keysOut = new DataOutputStream(keyBytes);
    int count = 0;
    for (KeyShard shard : predictor.shards()) {
      synchronized (shard) {
        for (KeyState s = shard.oldest; s != null; s = s.newer) {
          byte[] key = s.key.getBytes(StandardCharsets.UTF_8);
          keysOut.writeShort(key.length);
          keysOut.write(key);
          writeHistogram(keysOut, s.histogram);
          keysOut.writeLong(Math.max(0, now - s.lastActivityNanos));
          keysOut.writeLong(Math.max(0, now - s.lastDecayNanos));
          keysOut.writeInt(s.heldLevel);
          count++;
        }
      }
    }
    out.writeInt(count);
    keyBytes.writeTo(out);
    out.flush();
    byte[] content = bytes.toByteArray();
    byte[] result = java.util.Arrays.copyOf(content, content.length + 4);
    ByteBuffer.wrap(result).putInt(MAGIC.length + 4, result.length);
    CRC32C crc = new CRC32C();
    crc.update(result, 0, content.length);
    ByteBuffer.wrap(result).putInt(content.length, (int) crc.getValue());
    return result;
  }

  private static void writeHistogram(DataOutputStream out, DurationHistogram h) throws IOException {
    for (float bin : h.bins) {
      out.writeFloat(bin);
    }
    out.writeDouble(h.scale);
    out.writeDouble(h.total);
    out.writeDouble(h.sum);
    out.writeDouble(h.censored);
    out.writeLong(h.observations);
    out.writeLong(h.saturated);
  }

  /** Restores from the file or its rollback copy; {@link HistogramPredictor#recover} says how. */
  static SnapshotRecovery recover(
      Path file, String context, PredictorConfig config, Ticker ticker, Mode mode)
      throws SnapshotException {
    SnapshotException first;
    try {
      return new SnapshotRecovery(read(file, context, config, ticker, mode), file, List.of());
    } catch (SnapshotException e) {
      first = e;
    }
    if (first.reason() != SnapshotException.Reason.ABSENT) {
      try {
        Files.move(
            file,
            file.resolveSibling(file.getFileName() + ".refused"),
            StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException | RuntimeException e) {
        first.addSuppressed(e);
      }
    }
    Path prev = file.resolveSibling(file.getFileName() + ".prev");
    try {
      HistogramPredictor p = read(prev, context, config, ticker, mode);
      return new SnapshotRecovery(p, prev, List.of(first));
    } catch (SnapshotException e) {
      if (e.reason() != SnapshotException.Reason.ABSENT) {
        first.addSuppressed(e);
      }
      throw first;
    }
  }

  static HistogramPredictor read(
      Path file, String context, PredictorConfig config, Ticker ticker, Mode mode)
      throws SnapshotException {
    return read(file, context, config, PredictorTuning.defaults(), ticker, mode);
  }

  static HistogramPredictor read(
      Path file,
      String context,
      PredictorConfig config,
      PredictorTuning tuning,
      Ticker ticker,
      Mode mode)
      throws SnapshotException {
    checkContext(context);
    byte[] bytes;
    try {
      long size = Files.size(file);
      if (size > MAX_FILE_BYTES) {
        throw new SnapshotException(
            SnapshotException.Reason.TOO_LARGE,
            file + " is " + size + " bytes, over " + MAX_FILE_BYTES);
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new SnapshotException(SnapshotException.Reason.ABSENT, file + " does not exist", e);
    } catch (SnapshotException e) {
      throw e;
    } catch (IOException e) {
      throw new SnapshotException(
          SnapshotException.Reason.UNREADABLE, file + ": " + e.getMessage(), e);
    }
    Staged staged = decode(bytes, file.toString(), context, config);
    HistogramPredictor predictor = new HistogramPredictor(config, tuning, ticker, mode);
    long now = ticker.nanos();
    predictor.pooled().restore(staged.pooled, staged.boundaries, staged.keys);
    // Where the new configuration has less room, the most recently active keys survive; they are
    // then inserted
    // oldest first so that each shard's recency list comes back in order.
    staged.keys.sort(Comparator.comparingLong((StagedKey k) -> k.idleNanos));
    List<StagedKey> survivors = new ArrayList<>();
    java.util.Map<KeyShard, Integer> room = new java.util.HashMap<>();
    for (StagedKey k : staged.keys) {
      KeyShard shard = predictor.shardOf(k.key);
      int used = room.merge(shard, 1, Integer::sum);
      if (used <= shard.capacity) {
        survivors.add(k);
      }
    }
    for (int i = survivors.size() - 1; i >= 0; i--) {
      StagedKey k = survivors.get(i);
      KeyState s = new KeyState(k.key, now - k.idleNanos);
      s.restore(k.histogram);
      s.lastDecayNanos = now - k.sinceDecayNanos;
      s.heldLevel = k.heldLevel;
      predictor.restoreKey(s);
    }
    return predictor;
  }

  static Staged decode(byte[] bytes, String name, String context, PredictorConfig config)
      throws SnapshotException {
    if (bytes.length < MAGIC.length + 4) {
      throw new SnapshotException(
          SnapshotException.Reason.TRUNCATED, name + " has only " + bytes.length + " bytes");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (bytes[i] != MAGIC[i]) {
        throw new SnapshotException(
            SnapshotException.Reason.NOT_A_SNAPSHOT,
            name + " does not start with the snapshot magic");
      }
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    in.position(MAGIC.length);
    int version = in.getInt();
    if (version != VERSION) {
      throw new SnapshotException(
          SnapshotException.Reason.WRONG_VERSION,
          name + " has format version " + version + "; this build reads version " + VERSION);
    }
    if (bytes.length < HEADER_BYTES) {
      throw new SnapshotException(SnapshotException.Reason.TRUNCATED, name + " ends in its header");
    }
    int declared = in.getInt();
    if (declared > bytes.length) {
      throw new SnapshotException(
          SnapshotException.Reason.TRUNCATED,
          name + " has " + bytes.length + " of its " + declared + " bytes");
    }
    if (declared < bytes.length) {
      throw invalid(name, (bytes.length - declared) + " bytes after the end of the snapshot");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
    if ((int) crc.getValue() != stored) {
      throw new SnapshotException(
          SnapshotException.Reason.CHECKSUM_MISMATCH,
          name + " is corrupt or truncated: its checksum does not match its content");
    }
    ByteBuffer body = ByteBuffer.wrap(bytes, 0, bytes.length - 4);
    body.position(HEADER_BYTES);
    try {
      return decodeBody(body, name, context, config);
    } catch (BufferUnderflowException e) {
      throw new SnapshotException(
          SnapshotException.Reason.TRUNCATED, name + " ends before its content does", e);
    }
  }

  private static Staged decodeBody(
      ByteBuffer in, String name, String context, PredictorConfig config) throws SnapshotException {
    int printLength = in.getInt();
    if (printLength < 0
        || printLength > 4 * MAX_CONTEXT_CHARS + 256
        || printLength > in.remaining()) {
      throw invalid(name, "fingerprint length " + printLength);
    }
    byte[] print = new byte[printLength];
    in.get(print);
    String found = new String(print, StandardCharsets.UTF_8);
    String expected = fingerprint(config, context);
    if (!found.equals(expected)) {
      throw new SnapshotException(
          SnapshotException.Reason.FOREIGN_CONFIGURATION,
          name + " was saved with [" + found + "] but this predictor is [" + expected + "]");
    }
    in.getLong(); // save time, informational
    Staged staged = new Staged();
    int flag = in.get();
    if (flag == 1) {
      long sequence = in.getLong();
      int count = in.getInt();
      if (count != config.levels() - 1) {
        throw invalid(name, "boundary count " + count + " for " + config.levels() + " levels");
      }
      double[] values = new double[count];
      for (int j = 0; j < count; j++) {
        values[j] = in.getDouble();
      }
      if (sequence < 1 || !Boundaries.isValid(values)) {
        throw invalid(name, "boundaries must be positive and strictly increasing");
      }
      staged.boundaries = Boundaries.of(sequence, values);
    } else if (flag != 0) {
      throw invalid(name, "boundary flag " + flag);
    }
    staged.pooled = readHistogram(in, name, "pooled histogram");
    int keyCount = in.getInt();
    int smallestKeyRecord = 2 + 1 + 4 * HistogramLayout.BIN_COUNT + 4 * 8 + 2 * 8 + 2 * 8 + 4;
    if (keyCount < 0 || keyCount > in.remaining() / smallestKeyRecord) {
      throw invalid(
          name, "key count " + keyCount + " does not fit the " + in.remaining() + " bytes left");
    }
    Set<String> seen = new HashSet<>();
    staged.keys = new ArrayList<>(keyCount);
    for (int i = 0; i < keyCount; i++) {
      int length = Short.toUnsignedInt(in.getShort());
      if (length == 0 || length > Keys.MAX_KEY_BYTES) {
        throw invalid(name, "key " + i + " has length " + length);
      }
      byte[] raw = new byte[length];
      in.get(raw);
      String key = new String(raw, StandardCharsets.UTF_8);
      if (!Keys.isValid(key) || !seen.add(key)) {
        throw invalid(name, "key " + i + " is invalid or repeated");
      }
      StagedKey k = new StagedKey();
      k.key = key;
      k.histogram = readHistogram(in, name, "key " + i);
      k.idleNanos = in.getLong();
      k.sinceDecayNanos = in.getLong();
      k.heldLevel = in.getInt();
      if (k.idleNanos < 0 || k.sinceDecayNanos < 0) {
        throw invalid(name, "key " + i + " has a negative age");
      }
      if (k.heldLevel < -1 || k.heldLevel >= config.levels()) {
        throw invalid(name, "key " + i + " holds level " + k.heldLevel);
      }
      staged.keys.add(k);
    }
    if (in.hasRemaining()) {
      throw invalid(name, in.remaining() + " trailing bytes");
    }
    return staged;
  }

  private static DurationHistogram readHistogram(ByteBuffer in, String name, String what)
      throws SnapshotException {
    DurationHistogram h = new DurationHistogram();
    double binSum = 0;
    for (int b = 0; b < h.bins.length; b++) {
      float w = in.getFloat();
      if (!(w >= 0) || Float.isInfinite(w)) {
        throw invalid(name, what + " bin " + b + " has weight " + w);
      }
      h.bins[b] = w;
      binSum += w;
    }
    h.boundsFromBins();
    h.scale = in.getDouble();
    h.total = in.getDouble();
    h.sum = in.getDouble();
    h.censored = in.getDouble();
    h.observations = in.getLong();
    h.saturated = in.getLong();
    if (!(h.scale >= 1 && h.scale <= 2 * DurationHistogram.RENORMALISE_ABOVE)) {
      throw invalid(name, what + " has scale " + h.scale);
    }
    if (!finiteNonNegative(h.total)
        || !finiteNonNegative(h.sum)
        || !finiteNonNegative(h.censored)) {
      throw invalid(name, what + " has a negative or non-finite weight");
    }
    if (h.observations < 0 || h.saturated < 0 || h.saturated > h.observations) {
      throw invalid(name, what + " has observation counts " + h.observations + "/" + h.saturated);
    }
    if (Math.abs(binSum - h.total) > 1e-4 * Math.max(h.total, 1e-30) + 1e-30) {
      throw invalid(name, what + " bins sum to " + binSum + " but its total is " + h.total);
    }
    return h;
  }

  private static boolean finiteNonNegative(double v) {
    return v >= 0 && !Double.isInfinite(v);
  }

  private static SnapshotException invalid(String name, String detail) {
    return new SnapshotException(SnapshotException.Reason.INVALID_CONTENT, name + ": " + detail);
  }

  private static void checkContext(String context) {
    if (context == null || context.length() > MAX_CONTEXT_CHARS) {
      throw new IllegalArgumentException(
          "context must be non-null and at most " + MAX_CONTEXT_CHARS + " characters");
    }
  }

  static final class Staged {
    Boundaries boundaries;
    DurationHistogram pooled;
    List<StagedKey> keys;
  }

  static final class StagedKey {
    String key;
    DurationHistogram histogram;
    long idleNanos;
    long sinceDecayNanos;
    int heldLevel;
  }
}
