package io.harbinger.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * The JUnit 5 extension behind {@link EachBroker} and {@link WithBroker}: finds each kind of broker
 * once per test run, hands it to the tests, and fails or skips tests whose broker is missing.
 *
 * <p>Brokers are found by the built-in {@link BrokerLocator}, which connects to the URI of {@link
 * BrokerKind#uriVariable()}, and then by any locator registered with {@link ServiceLoader}. The
 * answer for each kind is kept for the whole run (in the root context's store), so every test sees
 * the same broker and a missing one costs one probe.
 *
 * <p>When a broker is missing, a test fails under {@code CI=true} (a CI run never silently skips
 * its integration tests) and is skipped otherwise (see {@link Prerequisite}): the JVM prints one
 * line per missing kind, the first time a test needs it, naming the variable to set and how to
 * start such a broker, and each test's reason says the same. Each test that runs prints the broker
 * it runs on.
 */
public final class BrokerExtension
    implements TestTemplateInvocationContextProvider, ParameterResolver, BeforeEachCallback {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(BrokerExtension.class);

  @Override
  public boolean supportsTestTemplate(ExtensionContext context) {
    return context.getTestMethod().map(m -> m.isAnnotationPresent(EachBroker.class)).orElse(false);
  }

  @Override
  public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(
      ExtensionContext context) {
    EachBroker each = context.getRequiredTestMethod().getAnnotation(EachBroker.class);
    Brokers brokers = brokers(context);
    List<TestTemplateInvocationContext> invocations = new ArrayList<>();
    for (BrokerKind kind : Arrays.stream(each.value()).distinct().toList()) {
      invocations.add(new Invocation(brokers.find(kind)));
    }
    return invocations.stream();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestBroker.class && !inTemplate(context);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return brokers(context).find(declaredKind(context)).require();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!inTemplate(context)) {
      announce(context, brokers(context).find(declaredKind(context)).require());
    }
  }

  private static void announce(ExtensionContext context, TestBroker broker) {
    System.out.println(
        "[broker] "
            + context.getRequiredTestClass().getSimpleName()
            + "."
            + context.getRequiredTestMethod().getName()
            + " on "
            + broker.label());
  }

  private static boolean inTemplate(ExtensionContext context) {
    return context.getTestMethod().map(m -> m.isAnnotationPresent(EachBroker.class)).orElse(false);
  }

  private static BrokerKind declaredKind(ExtensionContext context) {
    Optional<WithBroker> onMethod =
        context.getTestMethod().map(m -> m.getAnnotation(WithBroker.class));
    if (onMethod.isPresent()) {
      return onMethod.get().value();
    }
    for (Optional<Class<?>> c = context.getTestClass(); c.isPresent(); ) {
      WithBroker onClass = c.get().getAnnotation(WithBroker.class);
      if (onClass != null) {
        return onClass.value();
      }
      Class<?> enclosing = c.get().getEnclosingClass();
      c = Optional.ofNullable(enclosing);
    }
    return BrokerKind.RABBITMQ_3;
  }

  private static Brokers brokers(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .computeIfAbsent(Brokers.class, k -> new Brokers(Environment.current()), Brokers.class);
  }

  /** The brokers of one test run, each kind looked up once. */
  static final class Brokers {

    private final Environment environment;
    private final Set<String> printed;
    private final Consumer<String> out;
    private final Map<BrokerKind, Found> found = new EnumMap<>(BrokerKind.class);

    Brokers(Environment environment) {
      this(environment, Prerequisite.PRINTED, System.out::println);
    }

    /**
     * Brokers with the record of lines printed in this JVM and the output given, for tests of the
     * extension.
     */
    Brokers(Environment environment, Set<String> printed, Consumer<String> out) {
      this.environment = environment;
      this.printed = printed;
      this.out = out;
    }

    synchronized Found find(BrokerKind kind) {
      return found.computeIfAbsent(kind, this::locate);
    }

    private Found locate(BrokerKind kind) {
      List<String> failures = new ArrayList<>();
      List<BrokerLocator> locators = new ArrayList<>();
      locators.add(new EnvironmentBrokerLocator());
      ServiceLoader.load(BrokerLocator.class).forEach(locators::add);
      for (BrokerLocator locator : locators) {
        Optional<TestBroker> broker = locator.locate(kind, environment);
        if (broker.isPresent()) {
          return new Found(kind, broker.get(), "", this);
        }
        if (!locator.lastFailure().isEmpty()) {
          failures.add(locator.lastFailure());
        }
      }
      return new Found(kind, null, String.join("; ", failures), this);
    }
  }

  /**
   * The answer for one kind: a broker, or why there is none.
   *
   * @param kind the kind looked for
   * @param broker the broker, or null when none was found
   * @param detail why none was found, empty when one was
   * @param brokers the run it was looked up in, whose environment and output the message uses
   */
  record Found(BrokerKind kind, TestBroker broker, String detail, Brokers brokers) {

    /** Returns the prerequisite this kind of broker is: its name and how to get one. */
    Prerequisite prerequisite() {
      return Prerequisite.of(
          kind.displayName(),
          "Set " + kind.uriVariable() + " to the AMQP URI of one, or " + kind.howToStart());
    }

    /** Returns the message a test that needs the missing broker gets. */
    String missing() {
      return broker != null ? "" : prerequisite().message(detail);
    }

    /**
     * Returns the broker, or fails (CI) or skips (elsewhere) the test that needs it, the first time
     * printing one line that says so.
     */
    TestBroker require() {
      prerequisite()
          .require(broker != null, detail, brokers.environment, brokers.printed, brokers.out);
      return broker;
    }

    String displayName() {
      return broker != null ? broker.label() : kind.displayName() + " (not available)";
    }
  }

  /** One run of an {@link EachBroker} method: its name, its broker, its availability check. */
  private static final class Invocation implements TestTemplateInvocationContext {

    private final Found found;

    Invocation(Found found) {
      this.found = found;
    }

    @Override
    public String getDisplayName(int invocationIndex) {
      return "[" + found.displayName() + "]";
    }

    @Override
    public List<Extension> getAdditionalExtensions() {
      BeforeEachCallback check = context -> announce(context, found.require());
      ParameterResolver resolver =
          new ParameterResolver() {
            @Override
            public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
              return parameter.getParameter().getType() == TestBroker.class;
            }

            @Override
            public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
              return found.require();
            }
          };
      return List.of(check, resolver);
    }
  }
}
