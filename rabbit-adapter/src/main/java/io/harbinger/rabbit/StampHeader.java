package io.harbinger.rabbit;

import com.rabbitmq.client.LongString;
import io.harbinger.predictor.PredictorConfig;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The value of the {@code x-harbinger} header: the one definition of how a stamp's publish time,
 * level and mode are written into one short string, and how a consumer reads it back.
 *
 * <p>Format, version 1: {@code v1;l=LEVEL;m=MODE;t=MICROS}, fields separated by {@code ;}, each
 * {@code name=value}: {@code l} the level (decimal, in [0, 10)), {@code m} the mode ({@code p}
 * predictive, {@code s} shadow, {@code o} off), {@code t} the publish time in epoch microseconds
 * (decimal, positive). Example: level 0, predictive, published at 2026-12-01T12:00:00.000001Z is
 * {@code v1;l=0;m=p;t=1796126400000001} (29 characters). A wrapped channel writes it as an AMQP
 * byte array of that ASCII text ({@link #encodeInto}), which the client writes without a copy;
 * {@link #encode} gives it as a string (a long string on the wire), and consumers read both.
 *
 * <p>Reading is strict: the version must be {@code v1} and the fields exactly {@code l}, {@code m}
 * and {@code t}, each once, in any order, in at most {@value #MAX_LENGTH} characters. A value that
 * breaks any of these rules (malformed, or from a newer producer with another version or more
 * fields) is unreadable as a whole; a readable one whose level is outside the consumer's levels
 * keeps its publish time and has an unknown level. A producer that adds a field bumps the version.
 *
 * <p>Implementation notes. Encoding copies one of 30 prefixes, made once (one per level and mode),
 * and writes the decimal publish time after it: into a byte array the caller may reuse when it has
 * the right length, so a steady stream of publishes allocates nothing here. Parsing walks the
 * string once without splitting it; it allocates the string of a {@link LongString} or byte-array
 * value and the reading.
 *
 * <p>Thread-safe: stateless.
 */
final class StampHeader {

  /** The version this class writes and the only one it reads. */
  static final String VERSION = "v1";

  /** The longest value read; anything longer is unreadable. */
  static final int MAX_LENGTH = 64;

  /** Publish time, level, both unknown: what an absent or unreadable stamp yields. */
  static final long UNKNOWN = -1;

  private static final String MODES = "pso";
  private static final String[] MODE_NAMES = {"predictive", "shadow", "off"};
  private static final String[][] PREFIXES = new String[PredictorConfig.MAX_LEVELS][3];
  private static final byte[][][] PREFIX_BYTES = new byte[PredictorConfig.MAX_LEVELS][3][];

  static {
    for (int level = 0; level < PredictorConfig.MAX_LEVELS; level++) {
      for (int m = 0; m < MODES.length(); m++) {
        PREFIXES[level][m] = VERSION + ";l=" + level + ";m=" + MODES.charAt(m) + ";t=";
        PREFIX_BYTES[level][m] = PREFIXES[level][m].getBytes(StandardCharsets.US_ASCII);
      }
    }
  }

  private StampHeader() {}

  /**
   * Returns the header value of a stamp.
   *
   * @param publishedAtMicros the publish time, epoch microseconds, positive
   * @param level the level, in [0, 10)
   * @param mode {@code predictive}, {@code shadow} or {@code off}
   * @return the value, such as {@code v1;l=0;m=p;t=1796126400000001}
   */
  static String encode(long publishedAtMicros, int level, String mode) {
    if (level < 0 || level >= PredictorConfig.MAX_LEVELS) {
      throw new IllegalArgumentException(
          "level must be in [0, " + PredictorConfig.MAX_LEVELS + "): " + level);
    }
    if (publishedAtMicros <= 0) {
      throw new IllegalArgumentException(
          "publishedAtMicros must be positive epoch microseconds: " + publishedAtMicros);
    }
    return PREFIXES[level][modeIndex(mode)].concat(Long.toString(publishedAtMicros));
  }

  /**
   * Writes a stamp's value as ASCII bytes, into {@code reuse} when it has exactly the value's
   * length.
   *
   * @param publishedAtMicros the publish time in epoch microseconds, positive
   * @param level the level, in [0, 10)
   * @param mode {@code predictive}, {@code shadow} or {@code off}
   * @param reuse an array to write into, or null
   * @return {@code reuse} when its length fits, else a new array
   * @throws IllegalArgumentException as {@link #encode}
   */
  static byte[] encodeInto(long publishedAtMicros, int level, String mode, byte[] reuse) {
    if (level < 0 || level >= PredictorConfig.MAX_LEVELS) {
      throw new IllegalArgumentException(
          "level must be in [0, " + PredictorConfig.MAX_LEVELS + "): " + level);
    }
    if (publishedAtMicros <= 0) {
      throw new IllegalArgumentException(
          "publishedAtMicros must be positive epoch microseconds: " + publishedAtMicros);
    }
    byte[] prefix = PREFIX_BYTES[level][modeIndex(mode)];
    int digits = 1;
    for (long v = publishedAtMicros / 10; v > 0; v /= 10) {
      digits++;
    }
    int length = prefix.length + digits;
    byte[] out = reuse != null && reuse.length == length ? reuse : new byte[length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    long v = publishedAtMicros;
    for (int i = length - 1; i >= prefix.length; i--) {
      out[i] = (byte) ('0' + (int) (v % 10));
      v /= 10;
    }
    return out;
  }

  /**
   * Returns a header value's text: a string's, a long string's, or a byte array's as ASCII.
   *
   * @param value a header value, or null
   * @return its text, or null when it is none of those types
   */
  static String text(Object value) {
    if (value instanceof String s) {
      return s;
    }
    if (value instanceof LongString ls) {
      return ls.toString();
    }
    if (value instanceof byte[] b) {
      return new String(b, StandardCharsets.US_ASCII);
    }
    return null;
  }

  private static int modeIndex(String mode) {
    for (int m = 0; m < MODE_NAMES.length; m++) {
      if (MODE_NAMES[m].equals(mode)) {
        return m;
      }
    }
    throw new IllegalArgumentException("mode must be predictive, shadow or off: " + mode);
  }

  /**
   * What a consumer read from a message's stamp.
   *
   * @param publishedAtMicros the publish time in epoch microseconds, or -1 when unknown
   * @param level the level published at, or -1 when unknown
   * @param understood false when a stamp was present but could not be read in full: malformed, from
   *     a newer producer, or with a level outside the consumer's levels
   */
  record Reading(long publishedAtMicros, int level, boolean understood) {

    /** No stamp at all: a message published without the wrapper. */
    static final Reading ABSENT = new Reading(UNKNOWN, (int) UNKNOWN, true);

    /** A stamp that could not be read at all. */
    static final Reading UNREADABLE = new Reading(UNKNOWN, (int) UNKNOWN, false);
  }

  /**
   * Reads the stamp of a delivered message: its {@code x-harbinger} header, or failing that the
   * first version's {@code x-harbinger-published-at} and {@code x-harbinger-level}, which consumers
   * read for one version. Of the first version's headers, a publish time that is not a positive
   * number, or a level outside the consumer's levels, is unknown and makes the reading not
   * understood; the other header is still used.
   *
   * @param headers the message's headers, or null
   * @param levels the consumer's number of levels
   * @return what was read; {@link Reading#ABSENT} when the message carries no stamp
   */
  static Reading read(Map<String, ?> headers, int levels) {
    if (headers == null) {
      return Reading.ABSENT;
    }
    Object compact = headers.get(HarbingerHeaders.STAMP);
    if (compact != null) {
      return parse(compact, levels);
    }
    Object at = headers.get(HarbingerHeaders.PUBLISHED_AT);
    Object lv = headers.get(HarbingerHeaders.LEVEL);
    if (at == null && lv == null) {
      return Reading.ABSENT;
    }
    long micros = at == null ? UNKNOWN : longValue(at);
    long level = lv == null ? UNKNOWN : longValue(lv);
    boolean timeKnown = micros > 0;
    boolean levelKnown = level >= 0 && level < levels;
    return new Reading(
        timeKnown ? micros : UNKNOWN,
        levelKnown ? (int) level : (int) UNKNOWN,
        (at == null || timeKnown) && (lv == null || levelKnown));
  }

  /** Returns a first-version header's number, or -1 when it is none. */
  private static long longValue(Object v) {
    if (v instanceof Number n) {
      return n.longValue();
    }
    if (v instanceof LongString || v instanceof String) {
      try {
        return Long.parseLong(v.toString().trim());
      } catch (NumberFormatException e) {
        return UNKNOWN;
      }
    }
    return UNKNOWN;
  }

  /**
   * Reads a header value.
   *
   * @param value the value of {@code x-harbinger} as delivered (a {@link LongString} from the
   *     broker, a {@code String} in tests and frameworks), non-null
   * @param levels the consumer's number of levels; a level at or above it is unknown
   * @return what was read; {@link Reading#UNREADABLE} for anything but a version 1 value
   */
  static Reading parse(Object value, int levels) {
    if (!(value instanceof String || value instanceof LongString || value instanceof byte[])) {
      return Reading.UNREADABLE;
    }
    if (value instanceof LongString ls && ls.length() > MAX_LENGTH
        || value instanceof byte[] b && b.length > MAX_LENGTH) {
      return Reading.UNREADABLE;
    }
    // A byte array (what a wrapped channel sends) is read in place; a long string as its text.
    Object v = value instanceof LongString ? value.toString() : value;
    int n = length(v);
    if (n > MAX_LENGTH || n <= VERSION.length()) {
      return Reading.UNREADABLE;
    }
    for (int c = 0; c < VERSION.length(); c++) {
      if (at(v, c) != VERSION.charAt(c)) {
        return Reading.UNREADABLE;
      }
    }
    if (at(v, VERSION.length()) != ';') {
      return Reading.UNREADABLE;
    }
    long micros = UNKNOWN;
    long level = UNKNOWN;
    int mode = -1;
    int i = VERSION.length() + 1;
    while (i <= n) {
      int end = i;
      while (end < n && at(v, end) != ';') {
        end++;
      }
      if (end - i < 3 || at(v, i + 1) != '=') {
        return Reading.UNREADABLE;
      }
      switch (at(v, i)) {
        case 't' -> {
          if (micros != UNKNOWN) {
            return Reading.UNREADABLE;
          }
          micros = digits(v, i + 2, end, 18);
          if (micros <= 0) {
            return Reading.UNREADABLE;
          }
        }
        case 'l' -> {
          if (level != UNKNOWN) {
            return Reading.UNREADABLE;
          }
          level = digits(v, i + 2, end, 3);
          if (level < 0) {
            return Reading.UNREADABLE;
          }
        }
        case 'm' -> {
          if (mode >= 0 || end - i != 3) {
            return Reading.UNREADABLE;
          }
          mode = MODES.indexOf(at(v, i + 2));
          if (mode < 0) {
            return Reading.UNREADABLE;
          }
        }
        default -> {
          return Reading.UNREADABLE;
        }
      }
      i = end + 1;
    }
    if (micros == UNKNOWN || level == UNKNOWN || mode < 0) {
      return Reading.UNREADABLE;
    }
    if (level >= levels) {
      return new Reading(micros, (int) UNKNOWN, false);
    }
    return new Reading(micros, (int) level, true);
  }

  /** The length of a string or byte-array value. */
  private static int length(Object v) {
    return v instanceof byte[] b ? b.length : ((String) v).length();
  }

  /** The character at an index of a string or byte-array value (bytes read as Latin-1). */
  private static char at(Object v, int i) {
    return v instanceof byte[] b ? (char) (b[i] & 0xff) : ((String) v).charAt(i);
  }

  /** Returns the decimal number in {@code s[from, to)}, or -1 unless it is 1 to max digits. */
  private static long digits(Object v, int from, int to, int max) {
    if (to - from < 1 || to - from > max) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      char c = at(v, i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
