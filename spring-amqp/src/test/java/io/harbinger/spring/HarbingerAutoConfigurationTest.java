package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.predictor.HistogramPredictor;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Predictor;
import io.harbinger.predictor.PredictorConfig;
import io.harbinger.predictor.Ticker;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.RabbitTemplateCustomizer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * Each condition of {@link HarbingerAutoConfiguration}, in a context that Spring Boot's own
 * RabbitMQ auto-configuration builds. No broker is needed: nothing here opens a connection.
 */
class HarbingerAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  RabbitAutoConfiguration.class, HarbingerAutoConfiguration.class))
          .withPropertyValues("spring.rabbitmq.port=1");

  @Configuration(proxyBeanMethods = false)
  static class OwnPredictor {
    @Bean
    Predictor myPredictor() {
      return new HistogramPredictor(
          PredictorConfig.builder().minObservations(3).build(), Ticker.SYSTEM, Mode.PREDICTIVE);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnQueues {
    @Bean
    HarbingerQueues myQueues(ConnectionFactory connectionFactory) {
      return new HarbingerQueues(connectionFactory, 3);
    }
  }

  @Test
  void defaults_installStampingTimingTheEmbeddedPredictorHealthAndMetrics() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).hasSingleBean(HarbingerProperties.class);
          assertThat(context).hasSingleBean(HarbingerQueues.class);
          assertThat(context).hasSingleBean(HarbingerRuntime.class);
          assertThat(context).hasSingleBean(HarbingerStamping.class);
          assertThat(context).hasSingleBean(HarbingerListenerAdvice.class);
          assertThat(context).hasSingleBean(HarbingerBeanPostProcessor.class);
          assertThat(context).hasSingleBean(PrefetchCheck.class);
          assertThat(context).hasSingleBean(Predictor.class);
          assertThat(context.getBean(Predictor.class).config())
              .isEqualTo(PredictorConfig.defaults());
          assertThat(context).hasBean("harbingerHealthIndicator");
          assertThat(context).hasSingleBean(HarbingerMetrics.class);
          assertThat(context.getBean(HarbingerRuntime.class).options().router())
              .isSameAs(context.getBean(Predictor.class));
        });
  }

  @Test
  void modeOff_leavesOnlyThePropertiesAndTheQueueFactory() {
    runner
        .withPropertyValues("harbinger.mode=off")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(HarbingerProperties.class);
              assertThat(context).hasSingleBean(HarbingerQueues.class);
              assertThat(context).doesNotHaveBean(HarbingerRuntime.class);
              assertThat(context).doesNotHaveBean(HarbingerBeanPostProcessor.class);
              assertThat(context).doesNotHaveBean(Predictor.class);
              assertThat(context).doesNotHaveBean("harbingerHealthIndicator");
              assertThat(context).doesNotHaveBean(HarbingerMetrics.class);
            });
  }

  @Test
  void modeOffInAnyCase_isOff() {
    runner
        .withPropertyValues("harbinger.mode= OFF ")
        .run(context -> assertThat(context).doesNotHaveBean(HarbingerRuntime.class));
  }

  @Test
  void modeShadow_installsEverythingAndStampsInShadow() {
    runner
        .withPropertyValues("harbinger.mode=shadow")
        .run(
            context -> {
              assertThat(context).hasSingleBean(HarbingerRuntime.class);
              assertThat(context.getBean(HarbingerRuntime.class).options().shadow()).isTrue();
            });
  }

  @Test
  void withoutSpringAmqp_installsNothing() {
    runner
        .withClassLoader(new FilteredClassLoader(RabbitTemplate.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(HarbingerProperties.class);
              assertThat(context).doesNotHaveBean(HarbingerQueues.class);
              assertThat(context).doesNotHaveBean(HarbingerRuntime.class);
            });
  }

  @Test
  void withoutAConnectionFactory_installsNoBeanThatNeedsOne() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HarbingerAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(HarbingerProperties.class);
              assertThat(context).doesNotHaveBean(HarbingerQueues.class);
              assertThat(context).doesNotHaveBean(HarbingerRuntime.class);
              assertThat(context).doesNotHaveBean(Predictor.class);
            });
  }

  @Test
  void anApplicationsOwnQueueFactory_isKept() {
    runner
        .withUserConfiguration(OwnQueues.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(HarbingerQueues.class);
              assertThat(context).hasBean("myQueues");
              assertThat(context).doesNotHaveBean("harbingerQueues");
            });
  }

  @Test
  void anApplicationsOwnPredictor_isTheEmbeddedRouter() {
    runner
        .withUserConfiguration(OwnPredictor.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(Predictor.class);
              Predictor own = context.getBean("myPredictor", Predictor.class);
              assertThat(own.config().minObservations()).isEqualTo(3);
              assertThat(context.getBean(HarbingerRuntime.class).options().router()).isSameAs(own);
            });
  }

  @Test
  void routerNone_createsNoPredictorAndStampsTheDefaultLevel() {
    runner
        .withPropertyValues("harbinger.router.kind=none")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(Predictor.class);
              assertThat(context.getBean(HarbingerRuntime.class).options().router()).isNull();
            });
  }

  @Test
  void routerSidecar_createsNoEmbeddedPredictor() {
    runner
        .withPropertyValues(
            "harbinger.router.kind=sidecar", "harbinger.router.sidecar.address=127.0.0.1:1")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(Predictor.class);
              assertThat(context.getBean(HarbingerRuntime.class).options().router()).isNotNull();
            });
  }

  @Test
  void routerSidecarWithoutTheSidecarClient_failsNamingTheDependency() {
    runner
        .withClassLoader(new FilteredClassLoader(SidecarRouters.CLIENT_CLASS))
        .withPropertyValues(
            "harbinger.router.kind=sidecar", "harbinger.router.sidecar.address=127.0.0.1:1")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "add the io.harbinger:harbinger-sidecar-client dependency"));
  }

  @Test
  void healthIndicatorDisabled_isLeftOut() {
    runner
        .withPropertyValues("management.health.harbinger.enabled=false")
        .run(
            context -> {
              assertThat(context).hasSingleBean(HarbingerRuntime.class);
              assertThat(context).doesNotHaveBean("harbingerHealthIndicator");
            });
  }

  @Test
  void healthIndicatorsDisabledByDefault_isLeftOut_unlessHarbingersIsEnabled() {
    runner
        .withPropertyValues("management.health.defaults.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("harbingerHealthIndicator"));
    runner
        .withPropertyValues(
            "management.health.defaults.enabled=false", "management.health.harbinger.enabled=true")
        .run(context -> assertThat(context).hasBean("harbingerHealthIndicator"));
  }

  @Test
  void onSpringBoot4_theIndicatorIsBoot4s_andReportsUnknownUntilTheRouterHasLevels() {
    runner.run(
        context -> {
          HealthIndicator indicator =
              context.getBean("harbingerHealthIndicator", HealthIndicator.class);
          assertThat(indicator.health().getStatus().getCode()).isEqualTo("UNKNOWN");
          assertThat(indicator.health().getDetails())
              .containsEntry("mode", "predictive")
              .containsKey("learning");
        });
  }

  @Test
  void withoutTheActuatorsHealth_hasNoHealthIndicator() {
    runner
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(HarbingerRuntime.class);
              assertThat(context).doesNotHaveBean("harbingerHealthIndicator");
            });
  }

  @Test
  void withoutMicrometer_hasNoMetrics() {
    runner
        .withClassLoader(new FilteredClassLoader(MeterBinder.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(HarbingerRuntime.class);
              assertThat(context).doesNotHaveBean(HarbingerMetrics.class);
            });
  }

  private final ApplicationContextRunner withTemplate =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  RabbitAutoConfiguration.class,
                  HarbingerAutoConfiguration.class,
                  HarbingerTemplateAutoConfiguration.class))
          .withPropertyValues("spring.rabbitmq.port=1");

  @Configuration(proxyBeanMethods = false)
  static class OwnTemplate {
    @Bean
    RabbitTemplate myTemplate(ConnectionFactory connectionFactory) {
      return new RabbitTemplate(connectionFactory);
    }
  }

  @Test
  void template_isAHarbingerTemplate_configuredByBootsProperties_andStamped() {
    withTemplate
        .withPropertyValues("spring.rabbitmq.template.routing-key=jobs")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(RabbitTemplate.class);
              RabbitTemplate template = context.getBean(RabbitTemplate.class);
              assertThat(template).isInstanceOf(HarbingerRabbitTemplate.class);
              assertThat(template.getRoutingKey()).isEqualTo("jobs");
              assertThat(template.getConnectionFactory())
                  .isSameAs(context.getBean(ConnectionFactory.class));
              assertThat(template.getBeforePublishPostProcessors())
                  .contains(context.getBean(HarbingerStamping.class));
              assertThat(context).hasSingleBean(LaneListeners.class);
            });
  }

  @Test
  void template_modeOffOrTheApplicationsOwn_isLeftAsItIs() {
    withTemplate
        .withPropertyValues("harbinger.mode=off")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(RabbitTemplate.class))
                  .isNotInstanceOf(HarbingerRabbitTemplate.class);
              assertThat(context).doesNotHaveBean(LaneListeners.class);
            });
    withTemplate
        .withUserConfiguration(OwnTemplate.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(RabbitTemplate.class);
              assertThat(context.getBean(RabbitTemplate.class))
                  .isNotInstanceOf(HarbingerRabbitTemplate.class);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class Customizer {
    @Bean
    RabbitTemplateCustomizer replyTimeout() {
      return template -> template.setReplyTimeout(1234);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoConnectionFactories {
    @Bean
    @Primary
    ConnectionFactory first() {
      return new CachingConnectionFactory("127.0.0.1", 1);
    }

    @Bean
    ConnectionFactory second() {
      return new CachingConnectionFactory("127.0.0.1", 1);
    }
  }

  @Test
  void template_getsTheApplicationsCustomizers_asBootsOwnWould() {
    withTemplate
        .withUserConfiguration(Customizer.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              HarbingerRabbitTemplate template = context.getBean(HarbingerRabbitTemplate.class);
              assertThat(template).extracting("replyTimeout").isEqualTo(1234L);
            });
  }

  @Test
  void template_severalConnectionFactories_usesThePrimary_asBootsOwnWould() {
    withTemplate
        .withUserConfiguration(TwoConnectionFactories.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(RabbitTemplate.class))
                  .isInstanceOf(HarbingerRabbitTemplate.class)
                  .extracting(RabbitTemplate::getConnectionFactory)
                  .isSameAs(context.getBean("first"));
            });
  }
}
