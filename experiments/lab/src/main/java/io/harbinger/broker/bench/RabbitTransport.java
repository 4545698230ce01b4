package io.harbinger.broker.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * RabbitMQ: one classic non-durable queue with a unique name, producers publishing to it through
 * the default exchange, consumers with prefetch 1 and manual acks. The consumer connection gets an
 * executor with one thread per consumer: the Java client's default consumer pool has about one
 * thread per core, which would run fewer handlers at once than there are consumers.
 */
final class RabbitTransport implements Transport {

  private final ConnectionFactory factory = new ConnectionFactory();
  private final String queue;
  private final Connection producerConnection;
  private Connection consumerConnection;
  private ExecutorService consumerExecutor;
  private final List<Channel> consumerChannels = new ArrayList<>();

  RabbitTransport(String uri, String queue) throws Exception {
    factory.setUri(uri);
    this.queue = queue;
    this.producerConnection = factory.newConnection("harbinger-bench-producers");
    try (Channel ch = producerConnection.createChannel()) {
      ch.queueDeclare(queue, true, false, false, Map.of());
    }
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public Sender newSender() throws IOException {
    Channel ch = producerConnection.createChannel();
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().deliveryMode(1).build();
    return new Sender() {
      @Override
      public void send(byte[] payload) throws IOException {
        ch.basicPublish("", queue, props, payload);
      }

      @Override
      public void close() throws Exception {
        ch.close();
      }
    };
  }

  @Override
  public void startConsumers(int count, Sink sink) throws Exception {
    consumerExecutor = Executors.newFixedThreadPool(count);
    consumerConnection = factory.newConnection(consumerExecutor, "harbinger-bench-consumers");
    for (int i = 0; i < count; i++) {
      Channel ch = consumerConnection.createChannel();
      ch.basicQos(1);
      ch.basicConsume(
          queue,
          false,
          new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(
                String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                throws IOException {
              sink.accept(body);
              getChannel().basicAck(envelope.getDeliveryTag(), false);
            }
          });
      consumerChannels.add(ch);
    }
  }

  @Override
  public void stopConsumers() throws Exception {
    if (consumerConnection != null) {
      consumerConnection.close();
      consumerConnection = null;
      consumerExecutor.shutdownNow();
    }
    consumerChannels.clear();
  }

  @Override
  public void close() throws Exception {
    stopConsumers();
    try (Channel ch = producerConnection.createChannel()) {
      ch.queueDelete(queue);
    }
    producerConnection.close();
  }
}
