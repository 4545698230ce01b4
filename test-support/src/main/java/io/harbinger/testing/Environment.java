package io.harbinger.testing;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The variables the integration tests read: a Java system property wins over the environment
 * variable of the same name.
 */
public final class Environment {

  private final Function<String, String> properties;
  private final Map<String, String> variables;

  private Environment(Function<String, String> properties, Map<String, String> variables) {
    this.properties = properties;
    this.variables = variables;
  }

  /** Returns the environment of this JVM: its system properties over its environment variables. */
  public static Environment current() {
    return new Environment(System::getProperty, System.getenv());
  }

  /**
   * Returns an environment made of given variables only, for tests of the extension itself.
   *
   * @param variables the variables, none of them null
   * @return the environment
   */
  public static Environment of(Map<String, String> variables) {
    Map<String, String> copy = Map.copyOf(variables);
    return new Environment(name -> null, copy);
  }

  /**
   * Returns a variable's value, blank values counting as unset.
   *
   * @param name the variable's name
   * @return its value, or empty
   */
  public Optional<String> get(String name) {
    Objects.requireNonNull(name, "name");
    String value = properties.apply(name);
    if (value == null || value.isBlank()) {
      value = variables.get(name);
    }
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  /**
   * Returns whether the tests run in CI ({@code CI=true}), where a missing broker fails the run.
   */
  public boolean isCi() {
    return get("CI").map("true"::equalsIgnoreCase).orElse(false);
  }
}
