package io.harbinger.rabbit;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The reporters a learner accepts duration reports from, and the producers each may report for.
 *
 * <p>A reporter is the RabbitMQ user that published a report batch, as the batch's {@code user-id}
 * property says; RabbitMQ refuses a {@code user-id} other than the publishing connection's user
 * (unless that user has the {@code impersonator} tag), so a batch cannot claim another reporter. A
 * batch without a {@code user-id}, or from a user not listed here, is counted and ignored whole; a
 * report in an accepted batch whose producer (the delivered message's validated {@code user-id})
 * the reporter may not report for is counted and ignored alone.
 *
 * <p>Written as text (the sidecar's {@code reports.trusted-reporters}): reporters separated by
 * commas, each either a user alone (it may report for any producer) or {@code user=producer|...}
 * (only for those producers). Example: {@code "worker, billing-worker=billing|shop"} accepts
 * everything {@code worker} reports, and from {@code billing-worker} only reports about messages
 * that {@code billing} or {@code shop} published.
 *
 * <p>Immutable and thread-safe.
 */
public final class TrustedReporters {

  private static final String ANY = "*";

  private final Map<String, Set<String>> producersByReporter;

  private TrustedReporters(Map<String, Set<String>> producersByReporter) {
    this.producersByReporter = producersByReporter;
  }

  /**
   * Returns the policy that trusts the given users for every producer.
   *
   * @param reporters one or more user names
   * @return the policy
   */
  public static TrustedReporters of(String... reporters) {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    for (String r : reporters) {
      m.put(checkName("reporter", r), Set.of(ANY));
    }
    if (m.isEmpty()) {
      throw new IllegalArgumentException("at least one trusted reporter is needed");
    }
    return new TrustedReporters(Collections.unmodifiableMap(m));
  }

  /**
   * Parses the text form (see the class description).
   *
   * @param spec such as {@code "worker, billing-worker=billing|shop"}
   * @return the policy
   * @throws IllegalArgumentException naming the entry that is malformed
   */
  public static TrustedReporters parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    Map<String, Set<String>> m = new LinkedHashMap<>();
    for (String raw : spec.split(",", -1)) {
      String entry = raw.strip();
      if (entry.isEmpty()) {
        continue;
      }
      int eq = entry.indexOf('=');
      String reporter = (eq < 0 ? entry : entry.substring(0, eq)).strip();
      checkName("reporter in '" + entry + "'", reporter);
      Set<String> producers = new LinkedHashSet<>();
      if (eq < 0) {
        producers.add(ANY);
      } else {
        for (String p : entry.substring(eq + 1).split("\\|", -1)) {
          producers.add(checkName("producer in '" + entry + "'", p.strip()));
        }
      }
      if (m.put(reporter, Set.copyOf(producers)) != null) {
        throw new IllegalArgumentException("reporter listed twice: " + reporter);
      }
    }
    if (m.isEmpty()) {
      throw new IllegalArgumentException(
          "at least one trusted reporter is needed, such as \"worker\": '" + spec + "'");
    }
    return new TrustedReporters(Collections.unmodifiableMap(m));
  }

  private static String checkName(String what, String name) {
    if (name == null || name.isEmpty() || name.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new IllegalArgumentException(
          what + " must be a non-empty name without control characters: '" + name + "'");
    }
    return name;
  }

  /**
   * Returns whether batches published by a user are accepted.
   *
   * @param reporter the batch's {@code user-id}, or null when it carried none
   * @return true when the user is listed
   */
  public boolean trusts(String reporter) {
    return reporter != null && producersByReporter.containsKey(reporter);
  }

  /**
   * Returns whether a trusted reporter may report about a producer's messages.
   *
   * @param reporter a reporter {@link #trusts} accepts
   * @param producer the report's producer
   * @return true when the reporter may report for any producer or for this one
   */
  public boolean mayReportFor(String reporter, String producer) {
    Set<String> producers = producersByReporter.get(reporter);
    return producers != null && (producers.contains(ANY) || producers.contains(producer));
  }

  /**
   * Returns the reporters, in the order given.
   *
   * @return the user names
   */
  public Set<String> reporters() {
    return producersByReporter.keySet();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    producersByReporter.forEach(
        (r, ps) -> {
          if (!s.isEmpty()) {
            s.append(", ");
          }
          s.append(r);
          if (!ps.contains(ANY)) {
            s.append('=').append(String.join("|", ps));
          }
        });
    return s.toString();
  }
}
