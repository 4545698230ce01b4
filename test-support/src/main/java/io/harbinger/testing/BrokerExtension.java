package io.harbinger.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
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
 * its integration tests) and is skipped otherwise, with one line naming the variable to set and how
 * to start such a broker. Each test prints the broker it runs on.
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
    return brokers(context).find(declaredKind(context)).require(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!inTemplate(context)) {
      announce(context, brokers(context).find(declaredKind(context)).require(context));
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
    private final Map<BrokerKind, Found> found = new EnumMap<>(BrokerKind.class);

    Brokers(Environment environment) {
      this.environment = environment;
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
          return new Found(kind, broker.get(), "", environment.isCi());
        }
        if (!locator.lastFailure().isEmpty()) {
          failures.add(locator.lastFailure());
        }
      }
      String message =
          kind.displayName()
              + " is not available ("
              + String.join("; ", failures)
              + "). Set "
              + kind.uriVariable()
              + " to the AMQP URI of one, or "
              + kind.howToStart()
              + ".";
      return new Found(kind, null, message, environment.isCi());
    }
  }

  /** The answer for one kind: a broker, or the message that says why there is none. */
  record Found(BrokerKind kind, TestBroker broker, String missing, boolean ci) {

    /** Returns the broker, or fails (CI) or skips (elsewhere) the test that needs it. */
    TestBroker require(ExtensionContext context) {
      if (broker != null) {
        return broker;
      }
      if (ci) {
        throw new AssertionError(missing + " CI=true: a missing broker fails the run.");
      }
      Assumptions.abort(missing);
      throw new AssertionError(missing);
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
      BeforeEachCallback check = context -> announce(context, found.require(context));
      ParameterResolver resolver =
          new ParameterResolver() {
            @Override
            public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
              return parameter.getParameter().getType() == TestBroker.class;
            }

            @Override
            public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
              return found.require(context);
            }
          };
      return List.of(check, resolver);
    }
  }
}
