package io.harbinger.spring;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * {@link HarbingerHealth} as a Spring Boot 3 health indicator ({@code
 * org.springframework.boot.actuate.health.HealthIndicator}), so that one starter jar, built against
 * Spring Boot 4, also reports its health on Spring Boot 3.5.
 *
 * <p>Boot 3's health types are not on the build's classpath, so the indicator is a proxy of Boot
 * 3's interface that builds Boot 3's {@code Health} through its public factory methods ({@code
 * up()}, {@code unknown()}, {@code withDetails}, {@code build}). The registrar declares the bean
 * with Boot 3's interface as its type, as a {@code @Bean} method would, so that the actuator finds
 * it before it is created.
 */
final class Boot3HealthIndicator implements InvocationHandler {

  static final String INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";
  private static final String HEALTH = "org.springframework.boot.actuate.health.Health";

  private final HarbingerHealth health;
  private final Method up;
  private final Method unknown;
  private final Method withDetails;
  private final Method build;

  private Boot3HealthIndicator(HarbingerHealth health, ClassLoader loader)
      throws ReflectiveOperationException {
    this.health = health;
    Class<?> healthType = ClassUtils.forName(HEALTH, loader);
    this.up = healthType.getMethod("up");
    this.unknown = healthType.getMethod("unknown");
    Class<?> builder = up.getReturnType();
    this.withDetails = builder.getMethod("withDetails", Map.class);
    this.build = builder.getMethod("build");
  }

  /** Makes the indicator: an instance of Boot 3's {@code HealthIndicator}. */
  static Object create(HarbingerHealth health, ClassLoader loader) {
    try {
      Class<?> indicator = ClassUtils.forName(INDICATOR, loader);
      return Proxy.newProxyInstance(
          loader, new Class<?>[] {indicator}, new Boot3HealthIndicator(health, loader));
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new IllegalStateException(
          "Harbinger cannot make its health indicator for Spring Boot 3's actuator: " + e, e);
    }
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    switch (method.getName()) {
      case "health" -> {
        if (method.getParameterCount() == 0) {
          return health();
        }
        return InvocationHandler.invokeDefault(proxy, method, args);
      }
      case "equals" -> {
        return proxy == args[0];
      }
      case "hashCode" -> {
        return System.identityHashCode(proxy);
      }
      case "toString" -> {
        return "HarbingerHealthIndicator (Spring Boot 3)";
      }
      default -> {
        if (method.isDefault()) {
          return InvocationHandler.invokeDefault(proxy, method, args);
        }
        throw new UnsupportedOperationException(method.toString());
      }
    }
  }

  private Object health() throws Throwable {
    HarbingerHealth.Reading r = health.read();
    try {
      Object b = (r.up() ? up : unknown).invoke(null);
      withDetails.invoke(b, r.details());
      return build.invoke(b);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Declares the indicator as the bean {@code harbingerHealthIndicator}, typed as Boot 3's. */
  static final class Registrar implements ImportBeanDefinitionRegistrar, BeanFactoryAware {

    private BeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
      this.beanFactory = beanFactory;
    }

    @Override
    public void registerBeanDefinitions(
        AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
      ClassLoader loader = Boot3HealthIndicator.class.getClassLoader();
      RootBeanDefinition definition = new RootBeanDefinition();
      try {
        definition.setTargetType(ClassUtils.forName(INDICATOR, loader));
      } catch (ClassNotFoundException | LinkageError e) {
        return;
      }
      definition.setInstanceSupplier(
          () -> create(new HarbingerHealth(beanFactory.getBean(HarbingerRuntime.class)), loader));
      registry.registerBeanDefinition("harbingerHealthIndicator", definition);
    }
  }
}
