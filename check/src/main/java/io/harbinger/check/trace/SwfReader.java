package io.harbinger.check.trace;

import io.harbinger.predictor.Keys;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads a Standard Workload Format log (Parallel Workloads Archive).
 *
 * <p>Each job is a line of 18 whitespace-separated fields; header lines start with {@code ;}. A
 * job's arrival is its submit time (field 2, seconds after the header's UnixStartTime), its
 * duration its run time (field 4, seconds) and its size hint, chosen by the {@code size} option,
 * its allocated processors (field 5, {@code processors}, the default) or its requested run time
 * (field 9, seconds, {@code requested}: the user's own estimate of the job's size, as a producer
 * would put it in a message's size-hint header); -1 means unknown, and a job with an unknown size
 * has no hint. The key is chosen by the {@code key} option: {@code executable} (field 14, the
 * default), {@code user-queue} (fields 12 and 15), {@code user-executable} (fields 12 and 14) or
 * {@code user} (field 12).
 *
 * <p>Implementation notes. Rows are skipped, with a reason and line numbers, when they do not have
 * 18 fields, when a field the reader uses is not an integer, when the submit or run time is unknown
 * (negative), when the chosen key's field is unknown, or when {@code maxprocs} is set and the job
 * used more processors. Jobs that did not complete (field 11 other than 1: failed 0, cancelled 5)
 * are kept by default and counted under "kept", because they held a processor for their recorded
 * run time and a queue in front of them would have had to wait for them; {@code status=completed}
 * skips them instead. Keys are {@code exe=14}, {@code user=97}, {@code user=97} + 0x1F + {@code
 * queue=3} or {@code user=97} + 0x1F + {@code exe=14} with the trace's own numbers: a user-queue or
 * user-executable key is built as {@code Keys.of(user, queue or executable)}, so the user is its
 * producer, whose aggregate a cold key may borrow (seed paper section 3.5), as a RabbitMQ message's
 * key is its producer's user-id and its job type.
 */
final class SwfReader implements TraceReader {

  private static final int FIELDS = 18;
  private static final String NO_EXECUTABLE = "executable unknown (-1)";
  private static final String NO_USER = "user unknown (-1)";
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final long MAX_SECONDS = 9_000_000_000L;

  private final TraceSpec spec;

  SwfReader(TraceSpec spec) {
    this.spec = spec;
  }

  @Override
  public Trace read() throws TraceException {
    spec.requireOnly(Set.of("key", "status", "maxprocs", "zero", "size"));
    String keyBy =
        spec.choiceOption(
            "key", "executable", Set.of("executable", "user-queue", "user-executable", "user"));
    boolean completedOnly =
        spec.choiceOption("status", "all", Set.of("all", "completed")).equals("completed");
    boolean skipZero = spec.choiceOption("zero", "keep", Set.of("keep", "skip")).equals("skip");
    long maxProcs = spec.longOption("maxprocs", Long.MAX_VALUE, 1, Long.MAX_VALUE);
    boolean sizeRequested =
        spec.choiceOption("size", "processors", Set.of("processors", "requested"))
            .equals("requested");
    ReadTally tally = new ReadTally(spec.path().toString());
    TraceBuilder builder = new TraceBuilder(spec.text(), NANOS_PER_SECOND);
    LineFields f = new LineFields(FIELDS);
    long[] unixStart = {Long.MIN_VALUE};
    boolean byExecutable = keyBy.equals("executable");
    boolean byUser = keyBy.equals("user");
    boolean byUserExecutable = keyBy.equals("user-executable");
    Map<Long, Integer> keyIds = new HashMap<>();
    Map<Long, String> statusReasons = new HashMap<>();
    TraceInput.forEachLine(
        spec.path(),
        (line, number) -> {
          if (line.startsWith(";")) {
            int at = line.indexOf("UnixStartTime:");
            if (at >= 0) {
              String v = line.substring(at + "UnixStartTime:".length()).trim();
              unixStart[0] = LineFields.parseLong(v, 0, v.length());
            }
            return;
          }
          int n = f.splitWhitespace(line);
          if (n == 0) {
            return;
          }
          tally.read();
          if (n != FIELDS) {
            tally.skip("expected 18 fields", number);
            return;
          }
          long submit = f.parseLong(1);
          double run = f.parseDouble(3);
          long procs = f.parseLong(4);
          long status = f.parseLong(10);
          long user = f.parseLong(11);
          long exe = f.parseLong(13);
          long queue = f.parseLong(14);
          double requested = sizeRequested ? f.parseDouble(8) : 0;
          if (submit == LineFields.NOT_A_NUMBER
              || Double.isNaN(run)
              || procs == LineFields.NOT_A_NUMBER
              || status == LineFields.NOT_A_NUMBER
              || user == LineFields.NOT_A_NUMBER
              || exe == LineFields.NOT_A_NUMBER
              || queue == LineFields.NOT_A_NUMBER) {
            tally.skip("a field used (2, 4, 5, 11, 12, 14 or 15) is not an integer", number);
            return;
          }
          if (Double.isNaN(requested)) {
            tally.skip("requested time (field 9, size=requested) is not a number", number);
            return;
          }
          if (submit < 0) {
            tally.skip("submit time unknown (negative)", number);
            return;
          }
          if (submit > MAX_SECONDS || run > MAX_SECONDS) {
            tally.skip("submit or run time over " + MAX_SECONDS + " s", number);
            return;
          }
          if (run < 0) {
            tally.skip("run time unknown (negative)", number);
            return;
          }
          if (run == 0 && skipZero) {
            tally.skip("run time 0 (zero=skip)", number);
            return;
          }
          if (procs > maxProcs) {
            tally.skip("more than " + maxProcs + " processors", number);
            return;
          }
          String kept = null;
          if (status != 1) {
            String reason = statusReasons.computeIfAbsent(status, SwfReader::statusReason);
            if (completedOnly) {
              tally.skip(reason, number);
              return;
            }
            kept = reason;
          }
          String unknown =
              (byExecutable || byUserExecutable) && exe < 0
                  ? NO_EXECUTABLE
                  : !byExecutable && user < 0 ? NO_USER : null;
          if (unknown != null) {
            tally.skip(unknown, number);
            return;
          }
          // Exact numeric code of the key, to avoid building its string on every row.
          long second = byUserExecutable ? exe : queue;
          long keyCode =
              byExecutable ? exe : byUser ? user : (user << 32) | (second & 0xFFFF_FFFFL);
          boolean exact =
              byExecutable
                  || byUser
                  || (user <= Integer.MAX_VALUE && second >= -1 && second <= Integer.MAX_VALUE);
          Integer keyId = exact ? keyIds.get(keyCode) : null;
          if (keyId == null) {
            keyId =
                builder.intern(
                    byExecutable
                        ? "exe=" + exe
                        : byUser
                            ? "user=" + user
                            : byUserExecutable
                                ? "user=" + user + Keys.SEPARATOR + "exe=" + exe
                                : "user=" + user + Keys.SEPARATOR + "queue=" + queue);
            if (exact) {
              keyIds.put(keyCode, keyId);
            }
          }
          if (kept != null) {
            tally.keep(kept, number);
          }
          builder.add(
              submit * NANOS_PER_SECOND,
              Math.round(run * NANOS_PER_SECOND),
              keyId,
              sizeRequested
                  ? (requested < 0 ? -1 : (long) Math.min(requested, MAX_SECONDS))
                  : procs < 0 ? -1 : procs);
          tally.used();
        });
    tally.note(
        "keyed by "
            + switch (keyBy) {
              case "executable" -> "executable id (field 14)";
              case "user" -> "user id (field 12)";
              case "user-executable" -> "user and executable (fields 12 and 14)";
              default -> "user and queue (fields 12 and 15)";
            });
    tally.note(
        unixStart[0] == Long.MIN_VALUE
            ? "arrival = submit time (field 2); no UnixStartTime in the header"
            : "arrival = submit time (field 2), seconds after UnixStartTime " + unixStart[0]);
    if (skipZero) {
      tally.note("jobs with run time 0 are skipped (zero=skip)");
    }
    tally.note(
        sizeRequested
            ? "size hint = requested run time (field 9, seconds; size=requested)"
            : "size hint = allocated processors (field 5)");
    tally.note(
        completedOnly
            ? "only completed jobs (status 1) are used"
            : "jobs of every status are used; those not completed are counted under kept");
    tally.requireUsable(
        tally.skippedFor(NO_EXECUTABLE) > 0
            ? "a log without executable ids (-1) can be keyed with ?key=user-queue"
            : null);
    return builder.build(tally.report());
  }

  private static String statusReason(long status) {
    return "status " + status + " (" + statusName(status) + ")";
  }

  private static String statusName(long status) {
    return switch ((int) status) {
      case 0 -> "failed";
      case 5 -> "cancelled";
      case 2, 3, 4 -> "partial execution";
      default -> "not completed";
    };
  }
}
