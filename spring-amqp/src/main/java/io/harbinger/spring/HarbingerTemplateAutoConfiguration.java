package io.harbinger.spring;

import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.RabbitTemplateConfigurer;
import org.springframework.boot.amqp.autoconfigure.RabbitTemplateCustomizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Spring Boot auto-configuration of the application's {@link RabbitTemplate} as a {@link
 * HarbingerRabbitTemplate}, so that publishes to a lanes queue reach the lane of their level,
 * unless {@code harbinger.mode=off} or the application defines a {@link RabbitOperations} bean.
 *
 * <p>It runs before Spring Boot's {@link RabbitAutoConfiguration}, whose template then backs off,
 * and configures the template as Boot does: {@link RabbitTemplateConfigurer} applies {@code
 * spring.rabbitmq.template.*} and the message converter, then every {@link
 * RabbitTemplateCustomizer} runs in order. {@link HarbingerAutoConfiguration} adds the stamping
 * post-processor to it as to any template.
 */
@AutoConfiguration(before = RabbitAutoConfiguration.class)
@ConditionalOnClass({RabbitTemplate.class, RabbitTemplateConfigurer.class})
@Conditional(HarbingerAutoConfiguration.HarbingerOn.class)
public final class HarbingerTemplateAutoConfiguration {

  HarbingerTemplateAutoConfiguration() {}

  /**
   * The application's template, configured as Spring Boot configures its own.
   *
   * @param configurer Boot's template configurer, absent when Boot's RabbitMQ auto-configuration is
   *     excluded
   * @param connectionFactory the application's connection factory
   * @param customizers the application's template customizers
   * @return the template
   */
  @Bean
  @ConditionalOnMissingBean(RabbitOperations.class)
  HarbingerRabbitTemplate rabbitTemplate(
      ObjectProvider<RabbitTemplateConfigurer> configurer,
      ObjectProvider<ConnectionFactory> connectionFactory,
      ObjectProvider<RabbitTemplateCustomizer> customizers) {
    ConnectionFactory factory = connectionFactory.getIfUnique();
    if (factory == null) {
      throw new IllegalStateException(
          "Harbinger provides the application's RabbitTemplate and needs exactly one RabbitMQ"
              + " ConnectionFactory bean for it, and found none or several: define the"
              + " RabbitTemplate bean yourself (a HarbingerRabbitTemplate to publish into lanes),"
              + " or set harbinger.mode=off");
    }
    HarbingerRabbitTemplate template = new HarbingerRabbitTemplate();
    RabbitTemplateConfigurer c = configurer.getIfAvailable();
    if (c == null) {
      template.setConnectionFactory(factory);
    } else {
      c.configure(template, factory);
    }
    customizers.orderedStream().forEach(customizer -> customizer.customize(template));
    return template;
  }
}
