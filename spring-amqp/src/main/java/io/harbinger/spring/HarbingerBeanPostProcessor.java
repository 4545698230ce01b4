package io.harbinger.spring;

import java.util.Arrays;
import java.util.Collection;
import org.aopalliance.aop.Advice;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Installs Harbinger in the application's RabbitMQ beans: the stamping post-processor in every
 * {@link RabbitTemplate} on Harbinger's connection factory (a template on another factory may
 * authenticate as another user, whose {@code user-id} Harbinger cannot stamp), and the listener
 * advice at the head of every listener container factory's advice chain, so that it times the whole
 * invocation, retries included, once.
 *
 * <p>Both are added once, to what the bean already has, so the application's own post-processors
 * and advice (Spring Boot's retry interceptor) are kept.
 */
final class HarbingerBeanPostProcessor implements BeanPostProcessor {

  private final ObjectProvider<ConnectionFactory> connectionFactory;
  private final ObjectProvider<HarbingerStamping> stamping;
  private final ObjectProvider<HarbingerListenerAdvice> advice;

  HarbingerBeanPostProcessor(
      ObjectProvider<ConnectionFactory> connectionFactory,
      ObjectProvider<HarbingerStamping> stamping,
      ObjectProvider<HarbingerListenerAdvice> advice) {
    this.connectionFactory = connectionFactory;
    this.stamping = stamping;
    this.advice = advice;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof RabbitTemplate template
        && template.getConnectionFactory() == connectionFactory.getIfUnique()) {
      HarbingerStamping s = stamping.getObject();
      Collection<?> existing = template.getBeforePublishPostProcessors();
      if (existing == null || !existing.contains(s)) {
        template.addBeforePublishPostProcessors(s);
      }
    } else if (bean instanceof AbstractRabbitListenerContainerFactory<?> factory) {
      HarbingerListenerAdvice a = advice.getObject();
      Advice[] chain = factory.getAdviceChain();
      if (chain == null || chain.length == 0) {
        factory.setAdviceChain(a);
      } else if (!Arrays.asList(chain).contains(a)) {
        Advice[] withHarbinger = new Advice[chain.length + 1];
        withHarbinger[0] = a;
        System.arraycopy(chain, 0, withHarbinger, 1, chain.length);
        factory.setAdviceChain(withHarbinger);
      }
    }
    return bean;
  }
}
