package io.harbinger.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test method once per broker kind, each run named after the broker it ran on, such as
 * {@code [RabbitMQ 4.0.5 at 127.0.0.1:5674]}.
 *
 * <p>The method, and the class's {@code @BeforeEach} and {@code @AfterEach} methods, may take a
 * {@link TestBroker} parameter. A run whose broker is missing fails when {@code CI=true} and is
 * skipped otherwise, with one line naming the variable to set.
 *
 * <pre>{@code
 * @EachBroker
 * void publish_priorityQueue_reorders(TestBroker broker) throws Exception {
 *   try (Connection c = broker.newConnection("my-test")) { ... }
 * }
 * }</pre>
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
@ExtendWith(BrokerExtension.class)
public @interface EachBroker {

  /** Returns the kinds to run on, every kind by default. */
  BrokerKind[] value() default {BrokerKind.RABBITMQ_3, BrokerKind.RABBITMQ_4};
}
