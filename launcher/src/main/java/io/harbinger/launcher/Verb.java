package io.harbinger.launcher;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One verb of a root command: its name, the main method that runs it, and its picocli command
 * object, which the root's {@code --help} lists.
 *
 * @param name the verb as typed, for example {@code check}
 * @param type the class of the command object, whose main method runs the verb
 * @param main the main method, given the arguments after the verb
 * @param command makes the command object (annotated with picocli's {@code @Command})
 */
public record Verb(String name, Class<?> type, Consumer<String[]> main, Supplier<Object> command) {

  /** Checks the fields. */
  public Verb {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(main, "main");
    Objects.requireNonNull(command, "command");
  }
}
