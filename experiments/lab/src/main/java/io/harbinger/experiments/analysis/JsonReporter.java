package io.harbinger.experiments.analysis;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.harbinger.experiments.stats.GateResult;
import io.harbinger.experiments.stats.Interval;
import io.harbinger.experiments.stats.MetricDelta;
import io.harbinger.experiments.stats.Verdict;
import io.harbinger.experiments.workload.JobType;
import io.harbinger.experiments.workload.Phase;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes an {@link Analysis} as summary.json (format {@value Analysis#FORMAT}; schema in {@link
 * Analysis}). Undefined numbers are null. Stateless and thread-safe.
 */
final class JsonReporter {

  private JsonReporter() {}

  /**
   * Returns the summary as JSON text (schema in {@link Analysis}).
   *
   * @param an the analysis
   * @return pretty-printed JSON
   */
  static String render(Analysis an) {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("format", Analysis.FORMAT);
    ObjectNode boot = root.putObject("bootstrap");
    boot.put("method", an.bootstrap().toString());
    boot.put("resamples", an.bootstrap().resamples());
    boot.put(
        "rng",
        "java.util.SplittableRandom seeded with the bootstrap seed (not Python's random.Random)");
    root.put("time_scale", an.timeScale());
    ArrayNode arms = root.putArray("arms");
    for (String arm : an.arms()) {
      ObjectNode a = arms.addObject();
      a.put("arm", arm);
      a.put("baseline", an.baseline(arm));
      ArrayNode seeds = a.putArray("seeds");
      an.runs(arm).keySet().forEach(seeds::add);
      a.put("not_completed_total", an.notCompletedTotal(arm));
      ObjectNode median = a.putObject("median");
      List<String> names = new ArrayList<>(RunMetrics.HEADLINE);
      names.addAll(
          List.of("mean_wait_ms", "slowdown_p50", "slowdown_p99", "messages", "completed"));
      names.addAll(Gates.G3_METRICS);
      names.add(RunMetrics.LOST);
      for (String metric : names) {
        putNumber(median, metric, an.median(arm, metric));
      }
      ObjectNode perSeed = a.putObject("per_seed");
      an.runs(arm)
          .forEach(
              (seed, m) -> {
                ObjectNode s = perSeed.putObject(Long.toString(seed));
                m.values().forEach((k, v) -> putNumber(s, k, v));
              });
      ObjectNode phases = a.putObject("phases");
      for (Phase p : Phase.values()) {
        ObjectNode o = phases.putObject(p.wireName());
        for (String m : List.of("mean_ms", "p50_ms", "p99_ms")) {
          putNumber(o, m, an.median(arm, "phase." + p.wireName() + "." + m));
        }
      }
      ObjectNode classes = a.putObject("classes");
      for (JobType t : JobType.values()) {
        ObjectNode o = classes.putObject(t.wireName());
        for (String m : List.of("mean_ms", "p50_ms", "p99_ms")) {
          putNumber(o, m, an.median(arm, "class." + t.wireName() + "." + m));
        }
      }
      ArrayNode ds = a.putArray("deltas");
      for (MetricDelta d : an.deltas(arm)) {
        ObjectNode o = ds.addObject();
        o.put("metric", d.metric());
        putInterval(o, d.interval());
        ArrayNode units = o.putArray("seeds");
        d.pairs().units().forEach(units::add);
        ArrayNode values = o.putArray("values");
        d.pairs().values().forEach(values::add);
        o.put("unevaluable", d.pairs().unevaluableReason());
      }
      GateResult gate = an.gate(arm);
      if (gate != null) {
        ObjectNode g = a.putObject("gate");
        g.put("passed", gate.passed());
        putVerdicts(g.putArray("criteria"), gate);
      }
    }
    if (an.secondary() != null) {
      ObjectNode g = root.putObject("secondary");
      g.put("passed", an.secondary().passed());
      putVerdicts(g.putArray("criteria"), an.secondary());
    }
    try {
      return mapper.writeValueAsString(root) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("summary.json could not be serialised", e);
    }
  }

  private static void putVerdicts(ArrayNode criteria, GateResult gate) {
    for (Verdict v : gate.verdicts()) {
      ObjectNode c = criteria.addObject();
      c.put("id", v.criterion().id());
      c.put("arm", v.criterion().arm());
      c.put("rule", v.criterion().rule());
      c.put("status", v.status().name());
      putInterval(c, v.interval());
      c.put("reason", v.reason());
    }
  }

  private static void putInterval(ObjectNode o, Interval i) {
    putNumber(o, "point", i == null ? Double.NaN : i.point());
    putNumber(o, "low", i == null ? Double.NaN : i.low());
    putNumber(o, "high", i == null ? Double.NaN : i.high());
    if (i == null) {
      o.putNull("n");
    } else {
      o.put("n", i.n());
    }
  }

  private static void putNumber(ObjectNode o, String name, double value) {
    if (Double.isFinite(value)) {
      o.put(name, value);
    } else {
      o.putNull(name);
    }
  }
}
