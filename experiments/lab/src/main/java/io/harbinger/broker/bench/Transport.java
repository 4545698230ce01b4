package io.harbinger.broker.bench;

/**
 * One system under test: senders for producer threads and a set of consumers that hand every
 * message to a sink and then acknowledge it.
 */
interface Transport extends AutoCloseable {

  /** Receives each delivered payload; called on a consumer thread before the ack. */
  @FunctionalInterface
  interface Sink {
    void accept(byte[] payload);
  }

  /** Sends messages from one producer thread. */
  interface Sender extends AutoCloseable {
    void send(byte[] payload) throws Exception;

    /** Waits until every message sent so far is accepted by the broker. */
    default void flush() throws Exception {}

    @Override
    default void close() throws Exception {}
  }

  String name();

  Sender newSender() throws Exception;

  void startConsumers(int count, Sink sink) throws Exception;

  void stopConsumers() throws Exception;
}
