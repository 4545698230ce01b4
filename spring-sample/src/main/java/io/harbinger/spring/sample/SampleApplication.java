package io.harbinger.spring.sample;

import io.harbinger.spring.HarbingerQueues;
import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application with Harbinger: {@link JobsController} publishes jobs, {@link
 * JobsListener} works them off the priority queue that {@link HarbingerQueues} declares.
 *
 * <p>It connects to the RabbitMQ of {@code application.properties}; {@code spring-sample/README.md}
 * says how to run it.
 */
@SpringBootApplication
public class SampleApplication {

  /**
   * The jobs queue: a classic queue with {@code x-max-priority = harbinger.levels - 1}.
   *
   * @param queues Harbinger's queue factory
   * @param name the queue's name
   * @return the queue, declared by Spring's {@code RabbitAdmin}
   */
  @Bean
  Queue jobsQueue(HarbingerQueues queues, @Value("${sample.queue}") String name) {
    return queues.queue(name);
  }

  /**
   * Starts the application.
   *
   * @param args Spring Boot's arguments
   */
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }
}
