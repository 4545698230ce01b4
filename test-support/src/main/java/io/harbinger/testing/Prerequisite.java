package io.harbinger.testing;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;

/**
 * Something an integration test needs besides the code under test (a broker, a cluster, a Docker
 * daemon, the RabbitMQ binaries, a folder of traces), and what happens when it is missing: under
 * {@code CI=true} the test fails, elsewhere it is skipped, and either way one line on standard
 * output says what is missing and what to set or start.
 *
 * <p>Declare one per thing, once, and check it where the test first needs it:
 *
 * <pre>{@code
 * private static final Prerequisite TRACES =
 *     Prerequisite.of("the shared traces folder", "Set HARBINGER_TRACES to it");
 *
 * @BeforeAll
 * static void tracesPresent() {
 *   TRACES.require(Files.isDirectory(DIR), "no folder " + DIR.toAbsolutePath());
 * }
 * }</pre>
 *
 * <p>When the traces are missing, every test of the class is skipped (or fails under CI) with the
 * whole message as its reason, and the line
 *
 * <pre>
 * [skip] the shared traces folder is not available (no folder /work/shared/traces). Set
 * HARBINGER_TRACES to it. The tests that need it are skipped; with CI=true they fail.
 * </pre>
 *
 * <p>is printed once per JVM (Failsafe runs one JVM per module), however many tests need the same
 * thing for the same reason. A different reason is a different line.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Prerequisite {

  /** The lines printed so far in this JVM. */
  static final Set<String> PRINTED = ConcurrentHashMap.newKeySet();

  private final String name;
  private final String remedy;

  private Prerequisite(String name, String remedy) {
    this.name = name;
    this.remedy = remedy;
  }

  /**
   * Describes a prerequisite.
   *
   * @param name what it is, for messages that go on with "is not available", such as {@code
   *     "RabbitMQ 4.x"}; not blank
   * @param remedy one or more sentences saying what to set or start to have it, such as {@code "Set
   *     RABBITMQ4_URI to the AMQP URI of one"}; not blank, without a final period
   * @return the prerequisite
   */
  public static Prerequisite of(String name, String remedy) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(remedy, "remedy");
    if (name.isBlank() || remedy.isBlank()) {
      throw new IllegalArgumentException(
          "name and remedy must not be blank: '" + name + "', '" + remedy + "'");
    }
    return new Prerequisite(name, remedy);
  }

  /** Returns what the prerequisite is, such as {@code "RabbitMQ 4.x"}. */
  public String name() {
    return name;
  }

  /**
   * Returns the message a test gets when the prerequisite is missing: what, why, and the remedy.
   *
   * @param detail why it is missing, such as {@code "nothing answers at 127.0.0.1:5674"}
   * @return one line
   */
  public String message(String detail) {
    return name + " is not available (" + detail + "). " + remedy + ".";
  }

  /**
   * Returns normally when the prerequisite is present; otherwise fails the calling test under
   * {@code CI=true} and skips it elsewhere, after printing the line that says so once per JVM.
   *
   * @param present whether the test has what it needs
   * @param detail why it is missing, for the message; used only when {@code present} is false
   * @throws AssertionError when missing under {@code CI=true}
   * @throws org.opentest4j.TestAbortedException when missing elsewhere, which JUnit reports as
   *     skipped
   */
  public void require(boolean present, String detail) {
    require(present, detail, Environment.current(), PRINTED, System.out::println);
  }

  /** {@link #require(boolean, String)} with its environment, printed lines and output given. */
  void require(
      boolean present,
      String detail,
      Environment environment,
      Set<String> printed,
      Consumer<String> out) {
    if (present) {
      return;
    }
    String message = message(detail);
    boolean ci = environment.isCi();
    String line =
        ci
            ? "[fail] " + message + " CI=true: the tests that need it fail."
            : "[skip] " + message + " The tests that need it are skipped; with CI=true they fail.";
    if (printed.add(line)) {
      out.accept(line);
    }
    if (ci) {
      throw new AssertionError(message + " CI=true: a missing prerequisite fails the run.");
    }
    Assumptions.abort(message);
  }

  @Override
  public String toString() {
    return name;
  }
}
