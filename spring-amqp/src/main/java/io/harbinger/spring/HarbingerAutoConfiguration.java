package io.harbinger.spring;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot auto-configuration of Harbinger for RabbitMQ: binds {@code harbinger.*}, and unless
 * {@code harbinger.mode=off} stamps every {@code RabbitTemplate} publish, times every listener
 * container, makes the simple containers of lanes queues consume every lane ({@link
 * LaneListeners}), provides {@link HarbingerQueues}, and joins the actuator's health and metrics
 * when the application has them.
 *
 * <p>The producer identity is the user of the application's {@link ConnectionFactory}. The router
 * is an in-process {@link HistogramPredictor} ({@code harbinger.router.kind=embedded}, the default;
 * define a {@link Predictor} bean to configure it), the sidecar's route table ({@code sidecar}), or
 * none. With {@code harbinger.mode=off} nothing but the properties is created, and templates and
 * containers behave exactly as without Harbinger.
 */
@AutoConfiguration(
    afterName = {
      // Spring Boot 4, and Spring Boot 3.
      "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
      "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration"
    })
@ConditionalOnClass(RabbitTemplate.class)
@EnableConfigurationProperties(HarbingerProperties.class)
public final class HarbingerAutoConfiguration {

  HarbingerAutoConfiguration() {}

  /**
   * Binds the {@code harbinger.*} enums, naming the allowed values when a value is none of them.
   */
  @Bean
  @ConfigurationPropertiesBinding
  static AllowedValues harbingerAllowedValues() {
    return new AllowedValues();
  }

  /**
   * The queue factory, in every mode: a queue's arguments never change, so they must not depend on
   * whether Harbinger is on.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(ConnectionFactory.class)
  HarbingerQueues harbingerQueues(
      ConnectionFactory connectionFactory, HarbingerProperties properties) {
    return new HarbingerQueues(connectionFactory, properties.levels());
  }

  /** Harbinger's beans, when it is on and the application has a RabbitMQ connection factory. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(HarbingerOn.class)
  @ConditionalOnBean(ConnectionFactory.class)
  static class Enabled {

    @Bean
    static HarbingerBeanPostProcessor harbingerBeanPostProcessor(
        ObjectProvider<ConnectionFactory> connectionFactory,
        ObjectProvider<HarbingerStamping> stamping,
        ObjectProvider<HarbingerListenerAdvice> advice) {
      return new HarbingerBeanPostProcessor(connectionFactory, stamping, advice);
    }

    /** The embedded router's predictor, with the ten {@code harbinger.*} predictor settings. */
    @Bean
    @ConditionalOnMissingBean(Predictor.class)
    @ConditionalOnProperty(
        name = "harbinger.router.kind",
        havingValue = "embedded",
        matchIfMissing = true)
    Predictor harbingerPredictor(HarbingerProperties properties) {
      return new HistogramPredictor(properties.predictorConfig(), Ticker.SYSTEM, Mode.PREDICTIVE);
    }

    @Bean
    HarbingerRuntime harbingerRuntime(
        HarbingerProperties properties,
        ConnectionFactory connectionFactory,
        ObjectProvider<Predictor> predictor) {
      SpringBootLine.require(SpringBootVersion.getVersion());
      return new HarbingerRuntime(
          properties, connectionFactory, routerSource(properties, predictor));
    }

    private static RouterSource routerSource(
        HarbingerProperties properties, ObjectProvider<Predictor> predictor) {
      return switch (properties.router().kind()) {
        case NONE -> RouterSource.none();
        case EMBEDDED -> RouterSource.embedded(predictor.getObject());
        case SIDECAR -> {
          if (!ClassUtils.isPresent(SidecarRouters.CLIENT_CLASS, null)) {
            throw new IllegalStateException(
                "harbinger.router.kind=sidecar needs the sidecar client ("
                    + SidecarRouters.CLIENT_CLASS
                    + ") on the classpath: add the io.harbinger:harbinger-sidecar-client dependency");
          }
          yield SidecarRouters.watch(properties.router().sidecar(), properties.levels());
        }
      };
    }

    @Bean
    HarbingerStamping harbingerStamping(HarbingerRuntime runtime) {
      return new HarbingerStamping(runtime);
    }

    @Bean
    HarbingerListenerAdvice harbingerListenerAdvice(
        HarbingerRuntime runtime,
        ListableBeanFactory beans,
        ObjectProvider<RabbitListenerEndpointRegistry> registry) {
      return new HarbingerListenerAdvice(
          runtime.options(), new ListenerAckModes(containers(beans, registry)));
    }

    @Bean
    PrefetchCheck harbingerPrefetchCheck(
        HarbingerRuntime runtime,
        HarbingerQueues queues,
        ListableBeanFactory beans,
        ObjectProvider<RabbitListenerEndpointRegistry> registry) {
      return new PrefetchCheck(
          containers(beans, registry),
          () -> List.copyOf(beans.getBeansOfType(Queue.class, false, false).values()),
          queues,
          runtime);
    }

    @Bean
    LaneListeners harbingerLaneListeners(
        HarbingerRuntime runtime,
        ListableBeanFactory beans,
        ObjectProvider<RabbitListenerEndpointRegistry> registry) {
      return new LaneListeners(containers(beans, registry), runtime.options());
    }

    @Bean
    SmartInitializingSingleton harbingerQueueTypes(PrefetchCheck check) {
      return check::recordQueues;
    }

    @Bean
    ApplicationListener<ContextRefreshedEvent> harbingerPrefetchWarnings(PrefetchCheck check) {
      return event -> check.warn();
    }

    private static Supplier<List<AbstractMessageListenerContainer>> containers(
        ListableBeanFactory beans, ObjectProvider<RabbitListenerEndpointRegistry> registry) {
      return () -> {
        List<AbstractMessageListenerContainer> all =
            new ArrayList<>(
                beans
                    .getBeansOfType(AbstractMessageListenerContainer.class, false, false)
                    .values());
        RabbitListenerEndpointRegistry r = registry.getIfAvailable();
        if (r != null) {
          // The element type moved between Spring AMQP 4.0 and 4.1; only the containers matter.
          for (Object c : r.getListenerContainers()) {
            if (c instanceof AbstractMessageListenerContainer a && !all.contains(a)) {
              all.add(a);
            }
          }
        }
        return all;
      };
    }
  }

  /** Harbinger's part of the actuator's health, on Spring Boot 4. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = BOOT4_HEALTH_INDICATOR)
  @Conditional({HarbingerOn.class, HealthIndicatorEnabled.class})
  @ConditionalOnBean(ConnectionFactory.class)
  static class Health {

    @Bean
    HarbingerHealthIndicator harbingerHealthIndicator(HarbingerRuntime runtime) {
      return new HarbingerHealthIndicator(new HarbingerHealth(runtime));
    }
  }

  /** Harbinger's part of the actuator's health, on Spring Boot 3. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = Boot3HealthIndicator.INDICATOR)
  @ConditionalOnMissingClass(BOOT4_HEALTH_INDICATOR)
  @Conditional({HarbingerOn.class, HealthIndicatorEnabled.class})
  @ConditionalOnBean(ConnectionFactory.class)
  @Import(Boot3HealthIndicator.Registrar.class)
  static class Boot3Health {}

  /** Harbinger's meters, when Micrometer is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
  @Conditional(HarbingerOn.class)
  @ConditionalOnBean(ConnectionFactory.class)
  static class Metrics {

    @Bean
    HarbingerMetrics harbingerMetrics(HarbingerRuntime runtime, HarbingerListenerAdvice advice) {
      return new HarbingerMetrics(runtime, advice);
    }
  }

  private static final String BOOT4_HEALTH_INDICATOR =
      "org.springframework.boot.health.contributor.HealthIndicator";

  /**
   * Matches unless {@code management.health.harbinger.enabled} is false, or, when that is not set,
   * {@code management.health.defaults.enabled} is: the actuator's rule for every health indicator.
   */
  static final class HealthIndicatorEnabled extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      String own = context.getEnvironment().getProperty("management.health.harbinger.enabled");
      String property =
          own != null
              ? "management.health.harbinger.enabled"
              : "management.health.defaults.enabled";
      boolean enabled =
          Boolean.parseBoolean(
              own != null
                  ? own
                  : context
                      .getEnvironment()
                      .getProperty("management.health.defaults.enabled", "true"));
      return enabled
          ? ConditionOutcome.match(property + " is not false")
          : ConditionOutcome.noMatch(property + " is false");
    }
  }

  /**
   * Matches unless {@code harbinger.mode} is {@code off}; any other value, valid or not, goes on to
   * binding, which reports an invalid one.
   */
  static final class HarbingerOn extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      String mode = context.getEnvironment().getProperty("harbinger.mode", "predictive");
      return "off".equals(mode.trim().toLowerCase(Locale.ROOT))
          ? ConditionOutcome.noMatch("harbinger.mode is off")
          : ConditionOutcome.match("harbinger.mode is " + mode);
    }
  }
}
