package io.harbinger.rabbit;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes {@link ReportBatch}es in the reports' wire format, the protocol-buffers encoding
 * of {@code ReportBatch} in {@code api/src/main/proto/harbinger/v1/reports.proto}, so that neither
 * producers nor consumers need a protobuf library: what a publisher writes is byte for byte what
 * the protobuf runtime writes for the same message, and what it reads is what the runtime would
 * accept.
 *
 * <p>Implementation notes. Encoding follows proto3: fields in number order, a field at its default
 * (0, false, empty) left out, except the explicitly optional {@code size}, written whenever the
 * report has one; {@code int32} and {@code int64} values are varints, a negative one sign-extended
 * to ten bytes. Decoding accepts fields in any order (the last of a repeated singular field wins),
 * skips fields it does not know and known fields of another wire type (as unknown fields, including
 * groups), and refuses what the runtime refuses: a truncated varint or field, a varint over ten
 * bytes, field number 0, wire types 6 and 7, an unmatched end of group, a length past the end, a
 * string that is not UTF-8, nesting beyond 100 levels.
 *
 * <p>Stateless and thread-safe.
 */
final class ReportWire {

  /** Thrown for bytes that are not a report batch; the message says why. */
  static final class MalformedException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedException(String message) {
      super(message);
    }
  }

  private static final int VARINT = 0;
  private static final int I64 = 1;
  private static final int LEN = 2;
  private static final int START_GROUP = 3;
  private static final int END_GROUP = 4;
  private static final int I32 = 5;
  private static final int MAX_DEPTH = 100;

  private ReportWire() {}

  /**
   * Encodes a batch.
   *
   * @param batch the batch
   * @return its bytes
   */
  static byte[] encode(ReportBatch batch) {
    Writer w = new Writer(64 + 48 * batch.reports().size());
    w.string(1, batch.reporterId());
    w.varintField(2, batch.sequence());
    w.varintField(3, batch.sentAtMicros());
    w.varintField(4, batch.droppedSinceLast());
    Writer report = new Writer(64);
    for (DurationReport r : batch.reports()) {
      report.reset();
      report.string(1, r.producer());
      report.string(2, r.jobType());
      if (r.hasSize()) {
        report.tag(3, VARINT);
        report.varint(r.size());
      }
      report.varintField(4, r.settlement() == Settlement.UNKNOWN ? 0 : r.settlement().number());
      report.varintField(5, r.handlerNanos());
      report.varintField(6, r.waitMicros());
      report.varintField(7, r.publishedLevel());
      report.varintField(8, r.redelivered() ? 1 : 0);
      report.varintField(9, r.publishedAtMicros());
      report.varintField(10, r.settledAtMicros());
      w.tag(5, LEN);
      w.varint(report.size);
      w.bytes(report.buf, report.size);
    }
    return java.util.Arrays.copyOf(w.buf, w.size);
  }

  /**
   * Decodes a batch.
   *
   * @param bytes the bytes
   * @return the batch
   * @throws MalformedException when the bytes are not a report batch
   */
  static ReportBatch decode(byte[] bytes) throws MalformedException {
    Reader in = new Reader(bytes, 0, bytes.length);
    String reporterId = "";
    long sequence = 0;
    long sentAt = 0;
    long dropped = 0;
    List<DurationReport> reports = new ArrayList<>();
    while (in.more()) {
      long tag = in.varint();
      int field = in.field(tag);
      int type = (int) (tag & 7);
      if (field == 1 && type == LEN) {
        reporterId = in.string();
      } else if (field == 2 && type == VARINT) {
        sequence = in.varint();
      } else if (field == 3 && type == VARINT) {
        sentAt = in.varint();
      } else if (field == 4 && type == VARINT) {
        dropped = in.varint();
      } else if (field == 5 && type == LEN) {
        int length = in.length();
        reports.add(report(new Reader(bytes, in.pos, in.pos + length)));
        in.pos += length;
      } else {
        in.skip(field, type, 1);
      }
    }
    return new ReportBatch(reporterId, sequence, sentAt, dropped, reports);
  }

  private static DurationReport report(Reader in) throws MalformedException {
    String producer = "";
    String jobType = "";
    long size = -1;
    int settlement = 0;
    long handlerNanos = 0;
    long waitMicros = 0;
    int publishedLevel = 0;
    boolean redelivered = false;
    long publishedAt = 0;
    long settledAt = 0;
    while (in.more()) {
      long tag = in.varint();
      int field = in.field(tag);
      int type = (int) (tag & 7);
      if (field == 1 && type == LEN) {
        producer = in.string();
      } else if (field == 2 && type == LEN) {
        jobType = in.string();
      } else if (type != VARINT || field < 3 || field > 10) {
        in.skip(field, type, 2);
      } else {
        long v = in.varint();
        switch (field) {
          case 3 -> size = v;
          case 4 -> settlement = (int) v;
          case 5 -> handlerNanos = v;
          case 6 -> waitMicros = v;
          case 7 -> publishedLevel = (int) v;
          case 8 -> redelivered = v != 0;
          case 9 -> publishedAt = v;
          default -> settledAt = v;
        }
      }
    }
    return new DurationReport(
        producer,
        jobType,
        size,
        Settlement.ofNumber(settlement),
        handlerNanos,
        waitMicros,
        publishedLevel,
        redelivered,
        publishedAt,
        settledAt);
  }

  /** A growable buffer of encoded fields. */
  private static final class Writer {
    byte[] buf;
    int size;

    Writer(int capacity) {
      buf = new byte[capacity];
    }

    void reset() {
      size = 0;
    }

    void tag(int field, int type) {
      varint(((long) field << 3) | type);
    }

    void varintField(int field, long value) {
      if (value != 0) {
        tag(field, VARINT);
        varint(value);
      }
    }

    void string(int field, String value) {
      if (!value.isEmpty()) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        tag(field, LEN);
        varint(utf8.length);
        bytes(utf8, utf8.length);
      }
    }

    void varint(long value) {
      ensure(10);
      while ((value & ~0x7FL) != 0) {
        buf[size++] = (byte) ((value & 0x7F) | 0x80);
        value >>>= 7;
      }
      buf[size++] = (byte) value;
    }

    void bytes(byte[] from, int length) {
      ensure(length);
      System.arraycopy(from, 0, buf, size, length);
      size += length;
    }

    private void ensure(int more) {
      if (size + more > buf.length) {
        buf = java.util.Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
      }
    }
  }

  /** Reads fields from bytes[pos, end). */
  private static final class Reader {
    private final byte[] bytes;
    private final int end;
    int pos;

    Reader(byte[] bytes, int from, int end) {
      this.bytes = bytes;
      this.pos = from;
      this.end = end;
    }

    boolean more() {
      return pos < end;
    }

    long varint() throws MalformedException {
      long value = 0;
      for (int shift = 0; shift < 63; shift += 7) {
        byte b = next();
        value |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return value;
        }
      }
      // A tenth byte holds bit 63 only. The runtime sets that bit for any tenth byte under 0x80, as
      // a canonical encoding's 0x01 does, and refuses one with its continuation bit set.
      if (next() < 0) {
        throw new MalformedException("varint over ten bytes at byte " + pos);
      }
      return value | Long.MIN_VALUE;
    }

    private byte next() throws MalformedException {
      if (pos >= end) {
        throw new MalformedException("truncated varint at byte " + pos);
      }
      return bytes[pos++];
    }

    /**
     * Returns the field number of a tag. Tags are 32-bit, as the runtime reads them: the low 32
     * bits of a longer varint count.
     */
    int field(long tag) throws MalformedException {
      int field = ((int) tag) >>> 3;
      if (field == 0) {
        throw new MalformedException("invalid field number 0 at byte " + pos);
      }
      return field;
    }

    int length() throws MalformedException {
      long length = varint();
      if (length < 0 || length > end - pos) {
        throw new MalformedException("length " + length + " past the end at byte " + pos);
      }
      return (int) length;
    }

    String string() throws MalformedException {
      int length = length();
      CharsetDecoder utf8 =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT);
      try {
        String s = utf8.decode(ByteBuffer.wrap(bytes, pos, length)).toString();
        pos += length;
        return s;
      } catch (CharacterCodingException e) {
        throw new MalformedException("a string that is not UTF-8 at byte " + pos);
      }
    }

    /** Skips one field whose tag was just read; groups are skipped to their end, nested. */
    void skip(int field, int type, int depth) throws MalformedException {
      switch (type) {
        case VARINT -> varint();
        case I64 -> advance(8);
        case LEN -> {
          int n = length();
          pos += n;
        }
        case I32 -> advance(4);
        case START_GROUP -> {
          if (depth >= MAX_DEPTH) {
            throw new MalformedException("groups nested over " + MAX_DEPTH + " levels");
          }
          while (true) {
            if (!more()) {
              throw new MalformedException("group " + field + " without its end");
            }
            long tag = varint();
            int inner = field(tag);
            int innerType = (int) (tag & 7);
            if (innerType == END_GROUP) {
              if (inner != field) {
                throw new MalformedException("end of group " + inner + " inside group " + field);
              }
              return;
            }
            skip(inner, innerType, depth + 1);
          }
        }
        case END_GROUP -> throw new MalformedException("end of group " + field + " without start");
        default -> throw new MalformedException("invalid wire type " + type + " at byte " + pos);
      }
    }

    private void advance(int n) throws MalformedException {
      if (n > end - pos) {
        throw new MalformedException("truncated field at byte " + pos);
      }
      pos += n;
    }
  }
}
