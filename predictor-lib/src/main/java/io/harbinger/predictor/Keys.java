package io.harbinger.predictor;

/**
 * Builds and checks predictor keys: the producer identity, then {@link #SEPARATOR}, then the
 * job-type label.
 *
 * <p>The producer identity is the message's AMQP {@code user-id}, which RabbitMQ validates against
 * the publishing connection's user, so a producer can only mislabel its own work (seed paper
 * section 3.4). A label that is empty, longer than {@value #MAX_LABEL_BYTES} UTF-8 bytes or that
 * contains a control character is ignored and the key is the producer alone. A key is valid when it
 * is non-empty and at most {@value #MAX_KEY_BYTES} UTF-8 bytes.
 *
 * <p>Example: producer {@code "shop"} with job type {@code "send_email"} gives {@code
 * "shop\u001Fsend_email"}; with a size hint of 3,000 bytes and size bins on, the binned key is
 * {@code "shop\u001Fsend_email\u001Fs11"} (floor(log2 3000) = 11).
 */
public final class Keys {

  /** The byte between the parts of a key (ASCII unit separator). */
  public static final char SEPARATOR = '\u001F';

  /** Longest key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 256;

  /** Longest job-type label that is used, in UTF-8 bytes. */
  public static final int MAX_LABEL_BYTES = 128;

  /**
   * The key returned when none can be formed; the predictor treats it as {@link
   * Outcome#INVALID_KEY}.
   */
  public static final String NO_KEY = "";

  private static final String[] SIZE_LABELS = new String[64];

  private static final String[] SIZE_AGGREGATES = new String[64];

  static {
    for (int i = 0; i < SIZE_LABELS.length; i++) {
      SIZE_LABELS[i] = SEPARATOR + "s" + i;
      SIZE_AGGREGATES[i] = SIZE_LABELS[i] + SEPARATOR + SEPARATOR;
    }
  }

  private Keys() {}

  /**
   * Builds the key of a message.
   *
   * @param producer the producer identity; null, empty, or containing a control character gives
   *     {@link #NO_KEY}
   * @param jobType the job-type label, or null; ignored when empty, over {@value #MAX_LABEL_BYTES}
   *     bytes or when it contains a control character
   * @return the key, or {@link #NO_KEY} when the producer cannot form one
   */
  public static String of(String producer, String jobType) {
    if (producer == null || producer.isEmpty() || hasControl(producer)) {
      return NO_KEY;
    }
    if (!isUsableLabel(jobType)) {
      return producer;
    }
    String key = producer + SEPARATOR + jobType;
    return utf8Length(key) <= MAX_KEY_BYTES ? key : producer;
  }

  /**
   * Returns whether a job-type label is used in keys.
   *
   * @param jobType the label, or null
   * @return true when it is non-empty, at most {@value #MAX_LABEL_BYTES} UTF-8 bytes and free of
   *     control characters
   */
  public static boolean isUsableLabel(String jobType) {
    return jobType != null
        && !jobType.isEmpty()
        && jobType.length() <= MAX_LABEL_BYTES
        && !hasControl(jobType)
        && utf8Length(jobType) <= MAX_LABEL_BYTES;
  }

  /**
   * Returns the key under which a predictor aggregates every job type of a key's producer: the
   * producer, then two separators, which no key built by {@link #of} can equal.
   *
   * @param key a valid key
   * @return the aggregate key, or null when the key names no job type (it is its producer's own)
   */
  static String producerAggregate(String key) {
    LastAggregate last = lastAggregate;
    int n = last == null ? 0 : last.producer.length();
    if (n > 0 && key.length() > n && key.charAt(n) == SEPARATOR && key.startsWith(last.producer)) {
      // The producer holds no separator, so the key's first one is at n.
      return last.aggregate;
    }
    int cut = key.indexOf(SEPARATOR);
    if (cut <= 0) {
      return null;
    }
    String producer = key.substring(0, cut);
    String aggregate = producer + SEPARATOR + SEPARATOR;
    lastAggregate = new LastAggregate(producer, aggregate);
    return aggregate;
  }

  /**
   * The last producer aggregate built, reused while keys keep coming from one producer: each
   * observation asks for its producer's aggregate. Shared by every thread without a lock; a
   * record's final fields make a racy read see a whole pair or none.
   */
  private record LastAggregate(String producer, String aggregate) {}

  private static LastAggregate lastAggregate;

  /**
   * Returns the key under which a predictor aggregates every job whose size hint falls in one size
   * bin, whatever its key: a separator, the bin's label, then two separators. It starts with a
   * separator, so no key built by {@link #of} and no {@link #producerAggregate} can equal it.
   *
   * @param size a non-negative size hint
   * @return the aggregate key of the hint's {@link #sizeBin}
   * @throws IllegalArgumentException if size is negative
   */
  static String sizeAggregate(long size) {
    return SIZE_AGGREGATES[sizeBin(size)];
  }

  /** Returns whether a key is a {@link #producerAggregate} or a {@link #sizeAggregate}. */
  static boolean isAggregate(String key) {
    int n = key.length();
    return n >= 3 && key.charAt(n - 1) == SEPARATOR && key.charAt(n - 2) == SEPARATOR;
  }

  /**
   * Returns whether a key can be tracked and predicted.
   *
   * @param key the key, or null
   * @return true when it is non-empty and at most {@value #MAX_KEY_BYTES} UTF-8 bytes
   */
  public static boolean isValid(String key) {
    if (key == null || key.isEmpty()) {
      return false;
    }
    // Each char encodes to at most 3 UTF-8 bytes, so short keys need no count.
    return key.length() <= MAX_KEY_BYTES / 3 || utf8Length(key) <= MAX_KEY_BYTES;
  }

  /**
   * Returns the size bin of a size hint: floor(log2(max(size, 1))), which is at most 63.
   *
   * @param size a non-negative size in bytes or units
   * @return the bin, in [0, 63]
   * @throws IllegalArgumentException if size is negative
   */
  public static int sizeBin(long size) {
    if (size < 0) {
      throw new IllegalArgumentException("size must not be negative: " + size);
    }
    return 63 - Long.numberOfLeadingZeros(Math.max(size, 1));
  }

  /**
   * Returns a key extended with the size bin of a size hint.
   *
   * @param key a valid key
   * @param size a non-negative size hint
   * @return the binned key, or null when it would exceed {@value #MAX_KEY_BYTES} bytes
   */
  public static String withSizeBin(String key, long size) {
    String binned = key + SIZE_LABELS[sizeBin(size)];
    return isValid(binned) ? binned : null;
  }

  /**
   * Counts the UTF-8 bytes of a string without encoding it.
   *
   * @param s the string
   * @return its UTF-8 length as {@link java.nio.charset.StandardCharsets#UTF_8} encodes it (an
   *     unpaired surrogate becomes the one byte of '?')
   */
  public static int utf8Length(CharSequence s) {
    int bytes = 0;
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        bytes += 1;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static boolean hasControl(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7F) {
        return true;
      }
    }
    return false;
  }
}
