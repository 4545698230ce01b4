package io.harbinger.sidecar;

import java.util.List;

/** A configuration that cannot be used, with every problem found in it. */
public final class ConfigException extends Exception {

  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /**
   * Creates the exception.
   *
   * @param source what was read (a file name, or "defaults")
   * @param problems one line per problem, each naming the setting
   */
  public ConfigException(String source, List<String> problems) {
    super(format(source, problems));
    this.problems = List.copyOf(problems);
  }

  /**
   * Returns the problems, one per line.
   *
   * @return the problems
   */
  public List<String> problems() {
    return problems;
  }

  private static String format(String source, List<String> problems) {
    StringBuilder s =
        new StringBuilder(source)
            .append(": ")
            .append(problems.size())
            .append(problems.size() == 1 ? " problem" : " problems");
    for (String p : problems) {
      s.append(System.lineSeparator()).append("  - ").append(p);
    }
    return s.toString();
  }
}
