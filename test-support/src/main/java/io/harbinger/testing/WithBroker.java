package io.harbinger.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the tests of a class (or one test method) a broker of one kind, the 3.x broker by default.
 *
 * <p>Test and lifecycle methods may take a {@link TestBroker} parameter. When the broker is
 * missing, each test fails under {@code CI=true} and is skipped otherwise, with one line naming the
 * variable to set. Methods annotated {@link EachBroker} in the same class keep their own brokers.
 */
@Documented
@Inherited
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(BrokerExtension.class)
public @interface WithBroker {

  /** Returns the kind of broker, 3.x by default. */
  BrokerKind value() default BrokerKind.RABBITMQ_3;
}
