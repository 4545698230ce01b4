package io.harbinger.experiments.bench;

import io.harbinger.experiments.levels.DecisionLog;
import io.harbinger.experiments.workload.Job;
import io.harbinger.experiments.workload.Service;
import io.harbinger.experiments.workload.Workload;
import java.util.Map;
import java.util.Optional;

/**
 * One comparison arm: a broker and a delivery policy that carry the benchmark's messages from the
 * publishing services to the four workers.
 *
 * <p>An arm only moves bytes: the runner gives it a {@link Worker} that runs and records each
 * delivery and says whether to acknowledge it, and asks it for one {@link Publisher} per service.
 */
interface BenchArm {

  /**
   * Returns the arm's name, such as {@code rabbitmq-fifo}.
   *
   * @return letters, digits and {@code -}
   */
  String name();

  /**
   * Returns the external service this arm needs.
   *
   * @return RabbitMQ, Redis or none (Harbinger's broker runs in this JVM)
   */
  Backend backend();

  /**
   * Starts the arm's consumers: {@link BenchRunner#WORKERS} workers, prefetch 1, each delivery
   * handed to the worker and then acknowledged (true) or requeued (false).
   *
   * @param endpoints where RabbitMQ and Redis are
   * @param timeScale the run's time compression, at least 1 (divides the broker's aging threshold)
   * @param worker what runs each delivery
   * @return the running session; closing it stops the consumers and deletes what it created
   * @throws Exception when the broker cannot be reached or set up
   */
  Session open(Endpoints endpoints, double timeScale, Worker worker) throws Exception;

  /**
   * Starts the arm's consumers for a workload; arms that place jobs by the whole run's planned
   * costs (the oracle, the naive median) need it, the others use only its time scale.
   *
   * @param endpoints where RabbitMQ and Redis are
   * @param workload the run's jobs
   * @param worker what runs each delivery
   * @return the running session
   * @throws Exception when the broker cannot be reached or set up
   */
  default Session open(Endpoints endpoints, Workload workload, Worker worker) throws Exception {
    return open(endpoints, workload.config().timeScale(), worker);
  }

  /**
   * Returns the record of the placement decisions of this arm's last session.
   *
   * @return the record, empty for arms that place nothing (FIFO, Redis, Harbinger's broker)
   */
  default Optional<DecisionLog> decisions() {
    return Optional.empty();
  }

  /** The external service an arm needs. */
  enum Backend {
    /** RabbitMQ on {@link Endpoints#rabbitmq()}. */
    RABBITMQ,
    /** Redis on {@link Endpoints#redis()}. */
    REDIS,
    /** Nothing outside this JVM. */
    NONE
  }

  /** Runs one delivery; implemented by the runner, called on the arm's consumer threads. */
  @FunctionalInterface
  interface Worker {
    /**
     * Runs one attempt of the message with this body.
     *
     * @param body the message body as published
     * @return true to acknowledge, false to reject for a retry
     * @throws InterruptedException when the consumer is interrupted during the handler
     */
    boolean deliver(byte[] body) throws InterruptedException;
  }

  /** Publishes one service's jobs; used by one thread. */
  @FunctionalInterface
  interface Publisher {
    /**
     * Publishes a job: its JSON body, its job type header and whatever the arm adds.
     *
     * @param job the job
     * @throws Exception when the publish fails
     */
    void publish(Job job) throws Exception;
  }

  /** A running arm. */
  interface Session extends AutoCloseable {
    /**
     * Returns a new publisher for a service (its own channel or connection).
     *
     * @param service the publishing service
     * @return the publisher, for one thread
     * @throws Exception when the channel cannot be opened
     */
    Publisher publisher(Service service) throws Exception;

    /**
     * Returns the bodies of messages the broker dead-lettered so far.
     *
     * @return the bodies, empty for brokers without a dead-letter queue in this benchmark
     */
    default java.util.List<byte[]> deadLettered() {
      return java.util.List.of();
    }

    /**
     * Returns facts of the run for run.json (broker version, queue name, predictor counters).
     *
     * @return the facts, may be empty
     */
    Map<String, String> attributes();

    /** Stops the consumers and deletes the run's queues, keys and exchanges; best effort. */
    @Override
    void close();
  }
}
