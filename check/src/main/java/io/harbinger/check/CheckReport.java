package io.harbinger.check;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.harbinger.check.sim.WhatIf;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link CheckResult} as text for people or as JSON for scripts. Output depends only on
 * the result, so the same input gives byte-identical output.
 */
final class CheckReport {

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .registerModule(
              new SimpleModule()
                  .addSerializer(Double.class, new NanAsNull())
                  .addSerializer(Double.TYPE, new NanAsNull()));

  private CheckReport() {}

  /** Writes NaN, a metric over no rows, as JSON null rather than the non-standard NaN. */
  private static final class NanAsNull extends StdSerializer<Double> {
    private static final long serialVersionUID = 1L;

    NanAsNull() {
      super(Double.class);
    }

    @Override
    public void serialize(Double value, JsonGenerator out, SerializerProvider provider)
        throws IOException {
      if (value.isNaN()) {
        out.writeNull();
      } else {
        out.writeNumber(value);
      }
    }
  }

  static String json(CheckResult r) {
    try {
      return JSON.writeValueAsString(r) + System.lineSeparator();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the check result as JSON", e);
    }
  }

  static String text(CheckResult r) {
    StringBuilder s = new StringBuilder();
    line(s, "harbinger check %s", r.history());
    s.append('\n').append("input\n");
    for (String l : r.input().describe()) {
      s.append("  ").append(l).append('\n');
    }
    CheckResult.TraceFacts t = r.trace();
    s.append('\n').append("trace\n");
    line(s, "  %,d jobs, %,d keys, span %s", t.jobs(), t.keys(), duration(t.spanSeconds()));
    line(
        s,
        "  durations: p50 %s, p90 %s, p99 %s, max %s",
        duration(t.p50Seconds()),
        duration(t.p90Seconds()),
        duration(t.p99Seconds()),
        duration(t.maxSeconds()));
    CheckResult.Split sp = r.split();
    line(
        s,
        "  history = first %,d jobs by arrival; held out = last %,d",
        sp.historyJobs(),
        sp.heldOutJobs());
    line(
        s,
        "  durations floored at %s (%s) before logs, ratios and tiers",
        duration(t.floorSeconds()),
        t.floorSource());
    line(
        s,
        "  tiers = history tertiles: <= %s, <= %s, above; global median %s",
        duration(sp.tier1Seconds()),
        duration(sp.tier2Seconds()),
        duration(sp.globalMedianSeconds()));

    CheckResult.Coverage c = r.coverage();
    int m = sp.minObservations();
    s.append('\n').append("coverage\n");
    line(
        s,
        "  jobs on keys with >= %d observations (whole trace): %s",
        m,
        pct(c.shareOnKeysWithMinObservations()));
    line(
        s,
        "  held-out jobs on routable keys (>= %d history jobs): %s (%,d of %,d history keys)",
        m,
        pct(c.routableShare()),
        c.routableKeys(),
        c.historyKeys());
    line(s, "  held-out jobs on keys with < %d history jobs: %s", m, pct(c.coldShare()));
    line(s, "  held-out jobs on keys unseen in the history: %s", pct(c.unseenShare()));

    CheckResult.Accuracy k = r.perKey();
    CheckResult.Accuracy g = r.global();
    s.append('\n');
    line(
        s,
        "accuracy on held-out jobs of routable keys (%,d jobs)   per-key median  global median",
        k.rows());
    line(
        s,
        "  median |log2(predicted/actual)|                       %-15s %s",
        log2(k.medianAbsLog2Error()),
        log2(g.medianAbsLog2Error()));
    line(
        s,
        "  within 2x                                             %-15s %s",
        pct(k.within2x()),
        pct(g.within2x()));
    line(
        s,
        "  tier accuracy                                         %-15s %s",
        pct(k.tierAccuracy()),
        pct(g.tierAccuracy()));

    CheckResult.Spread w = r.spread();
    s.append('\n');
    line(
        s,
        "within-key p99/p50 (%,d routable keys, quantiles weighted by jobs): p25 %s, p50 %s,"
            + " p75 %s, p90 %s",
        w.keys(),
        ratio(w.p25()),
        ratio(w.p50()),
        ratio(w.p75()),
        ratio(w.p90()));

    s.append('\n').append("predictor replay\n");
    replay(s, r.replay());
    s.append('\n')
        .append("predictor replay, few-observation settings (opt-in; not used by the verdict)\n");
    replay(s, r.fewObservations());

    s.append('\n');
    line(s, "what-if simulation: %s", r.whatIf().note());
    for (WhatIf.Cell cell : r.whatIf().cells()) {
      line(
          s,
          "  %s at load %.2f: mean latency %+.1f%% against FIFO",
          cell.arm(),
          cell.load(),
          100 * cell.meanLatencyChange());
    }

    s.append('\n');
    line(s, "verdict: %s", r.verdict().words());
    line(s, "  because %s", r.reason());
    line(s, "  judged on %s", r.basis());
    return s.toString();
  }

  private static void replay(StringBuilder s, CheckResult.Replay p) {
    line(s, "  %s", p.setup());
    StringBuilder outcomes = new StringBuilder();
    for (Map.Entry<String, Double> e : p.outcomeShares().entrySet()) {
      outcomes.append(outcomes.isEmpty() ? "" : ", ").append(e.getKey()).append(' ');
      outcomes.append(pct(e.getValue()));
    }
    line(s, "  held-out jobs predicted: %s (outcomes: %s)", pct(p.predictedShare()), outcomes);
    line(
        s,
        "  predicted jobs whose level matched their actual duration's level: %s",
        pct(p.levelAccuracyOfPredicted()));
    line(
        s,
        "  estimated saving of FIFO's mean wait by its levels: %s (%s)",
        Double.isNaN(p.estimatedGain()) ? "unknown" : pct(p.estimatedGain()),
        p.gainNote());
    line(
        s,
        "  the same by its assignment, unmeasured keys at the default level (what the global"
            + " safeguard judges): %s",
        Double.isNaN(p.assignmentGain()) ? "unknown" : pct(p.assignmentGain()));
    if (p.rejectedObservations() > 0 || p.untrackedObservations() > 0) {
      line(
          s,
          "  observations refused (over one day): %,d; untracked (no room for the key): %,d",
          p.rejectedObservations(),
          p.untrackedObservations());
    }
  }

  private static void line(StringBuilder s, String format, Object... args) {
    s.append(String.format(Locale.ROOT, format, args)).append('\n');
  }

  private static String pct(double share) {
    return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * share);
  }

  private static String ratio(double x) {
    return Double.isNaN(x) ? "n/a" : String.format(Locale.ROOT, "%.1f", x);
  }

  private static String log2(double x) {
    return Double.isNaN(x)
        ? "n/a"
        : String.format(Locale.ROOT, "%.3f (x%.2f)", x, StrictMath.pow(2, x));
  }

  static String duration(double seconds) {
    if (Double.isNaN(seconds)) {
      return "n/a";
    }
    if (seconds == 0) {
      return "0 s";
    }
    if (seconds < 1e-3) {
      return String.format(Locale.ROOT, "%.1f us", seconds * 1e6);
    }
    if (seconds < 1) {
      return String.format(Locale.ROOT, "%.1f ms", seconds * 1e3);
    }
    if (seconds < 600) {
      return String.format(Locale.ROOT, "%.2f s", seconds);
    }
    if (seconds < 2 * 86_400) {
      return String.format(Locale.ROOT, "%.2f h", seconds / 3_600);
    }
    return String.format(Locale.ROOT, "%.1f days", seconds / 86_400);
  }
}
