package io.harbinger.spring;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot auto-configuration of the application's {@link RabbitTemplate} as a {@link
 * HarbingerRabbitTemplate}, so that publishes to a lanes queue reach the lane of their level,
 * unless {@code harbinger.mode=off} or the application defines a {@link RabbitOperations} bean.
 *
 * <p>It runs before Spring Boot's RabbitMQ auto-configuration, whose template then backs off, and
 * configures the template as Boot does: Boot's {@code RabbitTemplateConfigurer} applies {@code
 * spring.rabbitmq.template.*} and the message converter, then every {@code
 * RabbitTemplateCustomizer} runs in order. Those two types moved package between Spring Boot 3 and
 * 4, so they are found by name, for whichever line the application runs. {@link
 * HarbingerAutoConfiguration} adds the stamping post-processor to the template as to any other.
 *
 * <p>Like Boot's own template, it needs a single connection factory candidate: with several and
 * none primary it backs off, as Boot's does, and the application defines its templates.
 */
@AutoConfiguration(
    beforeName = {
      "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
      "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration"
    })
@ConditionalOnClass(RabbitTemplate.class)
@Conditional({
  HarbingerAutoConfiguration.HarbingerOn.class,
  HarbingerTemplateAutoConfiguration.AtMostOneConnectionFactory.class
})
public final class HarbingerTemplateAutoConfiguration {

  /** Boot's configurer and customizer types: Spring Boot 4's package, then Spring Boot 3's. */
  private static final String[] PACKAGES = {
    "org.springframework.boot.amqp.autoconfigure.", "org.springframework.boot.autoconfigure.amqp."
  };

  HarbingerTemplateAutoConfiguration() {}

  /**
   * The application's template, configured as Spring Boot configures its own.
   *
   * @param beans the application's beans, for Boot's template configurer and customizers
   * @param connectionFactory the application's connection factory
   * @return the template
   */
  @Bean
  @ConditionalOnMissingBean(RabbitOperations.class)
  HarbingerRabbitTemplate rabbitTemplate(
      ListableBeanFactory beans, ObjectProvider<ConnectionFactory> connectionFactory) {
    ConnectionFactory factory = connectionFactory.getIfUnique();
    if (factory == null) {
      throw new IllegalStateException(
          "Harbinger provides the application's RabbitTemplate and needs exactly one RabbitMQ"
              + " ConnectionFactory bean for it, and found none or several: define the"
              + " RabbitTemplate bean yourself (a HarbingerRabbitTemplate to publish into lanes),"
              + " or set harbinger.mode=off");
    }
    HarbingerRabbitTemplate template = new HarbingerRabbitTemplate();
    Class<?> configurerType = bootType("RabbitTemplateConfigurer");
    Object configurer =
        configurerType == null ? null : beans.getBeanProvider(configurerType).getIfAvailable();
    if (configurer == null) {
      template.setConnectionFactory(factory);
    } else {
      invoke(configurerType, "configure", configurer, template, factory);
    }
    Class<?> customizerType = bootType("RabbitTemplateCustomizer");
    if (customizerType != null) {
      beans
          .getBeanProvider(customizerType)
          .orderedStream()
          .forEach(c -> invoke(customizerType, "customize", c, template));
    }
    return template;
  }

  /**
   * Matches when the application's RabbitMQ connection factory will be a single candidate, as
   * Boot's own template requires: it defines none (Spring Boot's, made after this
   * auto-configuration, is then the one), one, or several of which one is primary.
   */
  static final class AtMostOneConnectionFactory extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      ConfigurableListableBeanFactory beans = context.getBeanFactory();
      String[] names =
          beans == null
              ? new String[0]
              : beans.getBeanNamesForType(ConnectionFactory.class, true, false);
      long primary =
          Arrays.stream(names)
              .filter(
                  n -> beans.containsBeanDefinition(n) && beans.getBeanDefinition(n).isPrimary())
              .count();
      return names.length <= 1 || primary == 1
          ? ConditionOutcome.match("a single RabbitMQ connection factory candidate")
          : ConditionOutcome.noMatch(
              names.length
                  + " RabbitMQ connection factories and none primary: the application defines its"
                  + " templates");
    }
  }

  /** The type of Boot's RabbitMQ auto-configuration with that simple name, or null. */
  private static Class<?> bootType(String simpleName) {
    ClassLoader loader = HarbingerTemplateAutoConfiguration.class.getClassLoader();
    for (String pkg : PACKAGES) {
      if (ClassUtils.isPresent(pkg + simpleName, loader)) {
        return ClassUtils.resolveClassName(pkg + simpleName, loader);
      }
    }
    return null;
  }

  /** Calls Boot's {@code configure(template, factory)} or {@code customize(template)}. */
  private static void invoke(Class<?> type, String name, Object target, Object... args) {
    Method method =
        args.length == 2
            ? ClassUtils.getMethod(type, name, RabbitTemplate.class, ConnectionFactory.class)
            : ClassUtils.getMethod(type, name, RabbitTemplate.class);
    try {
      method.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(type.getSimpleName() + "." + name + " failed", e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(
          "Harbinger cannot call Spring Boot's " + type.getName() + "." + name, e);
    }
  }
}
