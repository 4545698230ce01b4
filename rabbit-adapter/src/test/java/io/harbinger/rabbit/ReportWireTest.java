package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import io.harbinger.proto.v1.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ReportWire} against the protobuf runtime and the definitions in {@code reports.proto}: it
 * writes the same bytes for the same batch, reads what the runtime writes, and accepts and refuses
 * exactly what the runtime accepts and refuses.
 */
class ReportWireTest {

  private static final String[] WORDS = {
    "", "shop", "send_email", "résumé", "导出", "emoji \uD83D\uDE80", "x".repeat(300), "a\u0000b"
  };

  private static DurationReport randomReport(SplittableRandom r) {
    Settlement[] known = {
      Settlement.UNSPECIFIED,
      Settlement.ACK,
      Settlement.NACK,
      Settlement.REJECT,
      Settlement.CENSORED
    };
    return new DurationReport(
        WORDS[r.nextInt(WORDS.length)],
        WORDS[r.nextInt(WORDS.length)],
        r.nextInt(4) == 0 ? -1 : r.nextInt(3) == 0 ? 0 : r.nextLong(Long.MAX_VALUE),
        known[r.nextInt(known.length)],
        r.nextInt(5) == 0 ? 0 : r.nextLong(),
        r.nextInt(5) == 0 ? -1 : r.nextLong(1_000_000_000L),
        r.nextInt(-1, 10),
        r.nextBoolean(),
        r.nextInt(5) == 0 ? 0 : r.nextLong(),
        r.nextLong());
  }

  private static ReportBatch randomBatch(SplittableRandom r) {
    List<DurationReport> reports = new ArrayList<>();
    int n = r.nextInt(6);
    for (int i = 0; i < n; i++) {
      reports.add(randomReport(r));
    }
    return new ReportBatch(
        WORDS[r.nextInt(WORDS.length)],
        r.nextInt(3) == 0 ? 0 : r.nextLong(),
        r.nextLong(),
        r.nextInt(3) == 0 ? 0 : r.nextLong(),
        reports);
  }

  private static io.harbinger.proto.v1.ReportBatch proto(ReportBatch b) {
    io.harbinger.proto.v1.ReportBatch.Builder p =
        io.harbinger.proto.v1.ReportBatch.newBuilder()
            .setReporterId(b.reporterId())
            .setSequence(b.sequence())
            .setSentAtMicros(b.sentAtMicros())
            .setDroppedSinceLast(b.droppedSinceLast());
    for (DurationReport r : b.reports()) {
      io.harbinger.proto.v1.DurationReport.Builder d =
          io.harbinger.proto.v1.DurationReport.newBuilder()
              .setProducer(r.producer())
              .setJobType(r.jobType())
              .setOutcomeValue(r.settlement().number())
              .setHandlerNanos(r.handlerNanos())
              .setWaitMicros(r.waitMicros())
              .setPublishedLevel(r.publishedLevel())
              .setRedelivered(r.redelivered())
              .setPublishedAtMicros(r.publishedAtMicros())
              .setSettledAtMicros(r.settledAtMicros());
      if (r.hasSize()) {
        d.setSize(r.size());
      }
      p.addReports(d);
    }
    return p.build();
  }

  private static ReportBatch fromProto(io.harbinger.proto.v1.ReportBatch p) {
    List<DurationReport> reports = new ArrayList<>();
    for (io.harbinger.proto.v1.DurationReport d : p.getReportsList()) {
      reports.add(
          new DurationReport(
              d.getProducer(),
              d.getJobType(),
              d.hasSize() ? d.getSize() : -1,
              Settlement.ofNumber(d.getOutcomeValue()),
              d.getHandlerNanos(),
              d.getWaitMicros(),
              d.getPublishedLevel(),
              d.getRedelivered(),
              d.getPublishedAtMicros(),
              d.getSettledAtMicros()));
    }
    return new ReportBatch(
        p.getReporterId(), p.getSequence(), p.getSentAtMicros(), p.getDroppedSinceLast(), reports);
  }

  @Test
  void encode_writesTheBytesTheProtobufRuntimeWrites() {
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < 2_000; i++) {
      ReportBatch batch = randomBatch(r);

      assertThat(ReportWire.encode(batch))
          .as("batch %d: %s", i, batch)
          .isEqualTo(proto(batch).toByteArray());
    }
  }

  @Test
  void decode_readsWhatTheProtobufRuntimeWrites() throws Exception {
    SplittableRandom r = new SplittableRandom(11);
    for (int i = 0; i < 2_000; i++) {
      ReportBatch batch = randomBatch(r);

      assertThat(ReportWire.decode(proto(batch).toByteArray())).isEqualTo(batch);
    }
  }

  @Test
  void decode_unknownSettlementNumber_readsAsUnknown() throws Exception {
    byte[] bytes =
        io.harbinger.proto.v1.ReportBatch.newBuilder()
            .addReports(
                io.harbinger.proto.v1.DurationReport.newBuilder()
                    .setOutcomeValue(77)
                    .setJobType("a"))
            .build()
            .toByteArray();

    assertThat(ReportWire.decode(bytes).reports().get(0).settlement())
        .isEqualTo(Settlement.UNKNOWN);
  }

  @Test
  void decode_fieldsOfANewerVersion_areSkipped() throws Exception {
    io.harbinger.proto.v1.ReportBatch batch =
        io.harbinger.proto.v1.ReportBatch.newBuilder()
            .setReporterId("r")
            .setSequence(3)
            .addReports(
                io.harbinger.proto.v1.DurationReport.newBuilder()
                    .setProducer("shop")
                    .setOutcome(Outcome.OUTCOME_ACK)
                    .setHandlerNanos(5))
            .build();
    byte[] known = batch.toByteArray();
    // Field 9 as a varint, field 10 as 8 bytes, field 11 as a string, field 12 as 4 bytes, and a
    // group (field 13) holding a varint, appended to the batch.
    byte[] extra = {
      (byte) 0x48,
      0x05,
      (byte) 0x51,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      0x5A,
      0x02,
      'h',
      'i',
      0x65,
      1,
      2,
      3,
      4,
      0x6B,
      0x08,
      0x01,
      0x6C
    };
    byte[] both = Arrays.copyOf(known, known.length + extra.length);
    System.arraycopy(extra, 0, both, known.length, extra.length);

    assertThat(io.harbinger.proto.v1.ReportBatch.parseFrom(both).getReportsCount()).isEqualTo(1);
    assertThat(ReportWire.decode(both)).isEqualTo(fromProto(batch));
  }

  @Test
  void decode_garbage_isRefusedNamingWhy() {
    assertThatThrownBy(() -> ReportWire.decode(new byte[] {(byte) 0xFF, (byte) 0xFF}))
        .isInstanceOf(ReportWire.MalformedException.class)
        .hasMessageStartingWith("truncated varint");
    assertThatThrownBy(() -> ReportWire.decode(new byte[] {0x0A, 0x05, 'a'}))
        .hasMessageStartingWith("length 5 past the end");
    assertThatThrownBy(() -> ReportWire.decode(new byte[] {0x0A, 0x02, (byte) 0xC3, 0x28}))
        .hasMessageStartingWith("a string that is not UTF-8");
    assertThatThrownBy(() -> ReportWire.decode(new byte[] {0x00}))
        .hasMessageStartingWith("invalid field number 0");
    assertThatThrownBy(() -> ReportWire.decode(new byte[] {0x0F}))
        .hasMessageStartingWith("invalid wire type 7");
    assertThatThrownBy(() -> ReportWire.decode(new byte[] {0x0C}))
        .hasMessageStartingWith("end of group 1 without start");
  }

  @Test
  void decode_acceptsAndRefusesExactlyWhatTheProtobufRuntimeDoes() throws Exception {
    SplittableRandom r = new SplittableRandom(2026);
    int accepted = 0;
    int refused = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = ReportWire.encode(randomBatch(r));
      byte[] mutated = mutate(bytes, r);
      io.harbinger.proto.v1.ReportBatch runtime;
      try {
        runtime = io.harbinger.proto.v1.ReportBatch.parseFrom(mutated);
      } catch (InvalidProtocolBufferException e) {
        runtime = null;
      }
      ReportBatch ours;
      try {
        ours = ReportWire.decode(mutated);
      } catch (ReportWire.MalformedException e) {
        ours = null;
      }
      assertThat(ours == null)
          .as("refused alike: %s (runtime %s)", Arrays.toString(mutated), runtime)
          .isEqualTo(runtime == null);
      if (runtime != null) {
        assertThat(ours)
            .as("read alike: %s", Arrays.toString(mutated))
            .isEqualTo(fromProto(runtime));
        accepted++;
      } else {
        refused++;
      }
    }
    assertThat(accepted).as("mutations both accepted").isGreaterThan(1_000);
    assertThat(refused).as("mutations both refused").isGreaterThan(1_000);
  }

  private static byte[] mutate(byte[] bytes, SplittableRandom r) {
    if (bytes.length == 0) {
      return new byte[] {(byte) r.nextInt(256)};
    }
    byte[] out = bytes.clone();
    switch (r.nextInt(4)) {
      case 0 -> out[r.nextInt(out.length)] = (byte) r.nextInt(256);
      case 1 -> out = Arrays.copyOf(out, r.nextInt(out.length));
      case 2 -> out[r.nextInt(out.length)] ^= (byte) (1 << r.nextInt(8));
      default -> {
        int at = r.nextInt(out.length + 1);
        byte[] longer = new byte[out.length + 1];
        System.arraycopy(out, 0, longer, 0, at);
        longer[at] = (byte) r.nextInt(256);
        System.arraycopy(out, at, longer, at + 1, out.length - at);
        out = longer;
      }
    }
    return out;
  }
}
