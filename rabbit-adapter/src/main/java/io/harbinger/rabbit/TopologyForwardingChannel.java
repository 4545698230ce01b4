package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * The exchange and queue methods of a {@link ForwardingChannel} ({@code exchange.*}, {@code
 * queue.*}, {@code messageCount} and {@code consumerCount}: the topology), each forwarded unchanged
 * to the same method of the delegate.
 *
 * <p>Implementation notes. This is the first half of {@link ForwardingChannel}'s mechanical
 * delegation, split off by AMQP class only so that neither file is long; the two together declare
 * every method of {@link Channel}, and {@code ForwardingChannelTest} fails when {@code Channel} has
 * a method that neither declares, or that does not reach the delegate with the same arguments. Not
 * meant to be extended by anything but {@link ForwardingChannel}.
 *
 * <p>Thread safety: as thread-safe as the delegate; this class holds no state but the delegate.
 */
abstract sealed class TopologyForwardingChannel implements Channel permits ForwardingChannel {

  /** The channel every call is forwarded to. */
  final Channel delegate;

  /**
   * Creates the forwarding of the topology methods.
   *
   * @param delegate the channel to forward to
   */
  TopologyForwardingChannel(Channel delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public AMQP.Exchange.UnbindOk exchangeUnbind(
      String destination, String source, String routingKey, Map<String, Object> arguments)
      throws IOException {
    return delegate.exchangeUnbind(destination, source, routingKey, arguments);
  }

  @Override
  public AMQP.Exchange.UnbindOk exchangeUnbind(String destination, String source, String routingKey)
      throws IOException {
    return delegate.exchangeUnbind(destination, source, routingKey);
  }

  @Override
  public void exchangeUnbindNoWait(
      String destination, String source, String routingKey, Map<String, Object> arguments)
      throws IOException {
    delegate.exchangeUnbindNoWait(destination, source, routingKey, arguments);
  }

  @Override
  public AMQP.Queue.DeclareOk queueDeclare() throws IOException {
    return delegate.queueDeclare();
  }

  @Override
  public AMQP.Queue.DeclareOk queueDeclare(
      String queue,
      boolean durable,
      boolean exclusive,
      boolean autoDelete,
      Map<String, Object> arguments)
      throws IOException {
    return delegate.queueDeclare(queue, durable, exclusive, autoDelete, arguments);
  }

  @Override
  public void queueDeclareNoWait(
      String queue,
      boolean durable,
      boolean exclusive,
      boolean autoDelete,
      Map<String, Object> arguments)
      throws IOException {
    delegate.queueDeclareNoWait(queue, durable, exclusive, autoDelete, arguments);
  }

  @Override
  public AMQP.Queue.DeclareOk queueDeclarePassive(String queue) throws IOException {
    return delegate.queueDeclarePassive(queue);
  }

  @Override
  public AMQP.Queue.DeleteOk queueDelete(String queue, boolean ifUnused, boolean ifEmpty)
      throws IOException {
    return delegate.queueDelete(queue, ifUnused, ifEmpty);
  }

  @Override
  public AMQP.Queue.DeleteOk queueDelete(String queue) throws IOException {
    return delegate.queueDelete(queue);
  }

  @Override
  public void queueDeleteNoWait(String queue, boolean ifUnused, boolean ifEmpty)
      throws IOException {
    delegate.queueDeleteNoWait(queue, ifUnused, ifEmpty);
  }

  @Override
  public AMQP.Queue.BindOk queueBind(String queue, String exchange, String routingKey)
      throws IOException {
    return delegate.queueBind(queue, exchange, routingKey);
  }

  @Override
  public AMQP.Queue.BindOk queueBind(
      String queue, String exchange, String routingKey, Map<String, Object> arguments)
      throws IOException {
    return delegate.queueBind(queue, exchange, routingKey, arguments);
  }

  @Override
  public void queueBindNoWait(
      String queue, String exchange, String routingKey, Map<String, Object> arguments)
      throws IOException {
    delegate.queueBindNoWait(queue, exchange, routingKey, arguments);
  }

  @Override
  public AMQP.Queue.UnbindOk queueUnbind(
      String queue, String exchange, String routingKey, Map<String, Object> arguments)
      throws IOException {
    return delegate.queueUnbind(queue, exchange, routingKey, arguments);
  }

  @Override
  public AMQP.Queue.UnbindOk queueUnbind(String queue, String exchange, String routingKey)
      throws IOException {
    return delegate.queueUnbind(queue, exchange, routingKey);
  }

  @Override
  public AMQP.Queue.PurgeOk queuePurge(String queue) throws IOException {
    return delegate.queuePurge(queue);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(
      String exchange,
      String type,
      boolean durable,
      boolean autoDelete,
      Map<String, Object> arguments)
      throws IOException {
    return delegate.exchangeDeclare(exchange, type, durable, autoDelete, arguments);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(
      String exchange, BuiltinExchangeType type, boolean durable) throws IOException {
    return delegate.exchangeDeclare(exchange, type, durable);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(
      String exchange,
      BuiltinExchangeType type,
      boolean durable,
      boolean autoDelete,
      Map<String, Object> arguments)
      throws IOException {
    return delegate.exchangeDeclare(exchange, type, durable, autoDelete, arguments);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(String exchange, String type, boolean durable)
      throws IOException {
    return delegate.exchangeDeclare(exchange, type, durable);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(String exchange, BuiltinExchangeType type)
      throws IOException {
    return delegate.exchangeDeclare(exchange, type);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(String exchange, String type) throws IOException {
    return delegate.exchangeDeclare(exchange, type);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(
      String exchange,
      String type,
      boolean durable,
      boolean autoDelete,
      boolean internal,
      Map<String, Object> arguments)
      throws IOException {
    return delegate.exchangeDeclare(exchange, type, durable, autoDelete, internal, arguments);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclare(
      String exchange,
      BuiltinExchangeType type,
      boolean durable,
      boolean autoDelete,
      boolean internal,
      Map<String, Object> arguments)
      throws IOException {
    return delegate.exchangeDeclare(exchange, type, durable, autoDelete, internal, arguments);
  }

  @Override
  public void exchangeDeclareNoWait(
      String exchange,
      BuiltinExchangeType type,
      boolean durable,
      boolean autoDelete,
      boolean internal,
      Map<String, Object> arguments)
      throws IOException {
    delegate.exchangeDeclareNoWait(exchange, type, durable, autoDelete, internal, arguments);
  }

  @Override
  public void exchangeDeclareNoWait(
      String exchange,
      String type,
      boolean durable,
      boolean autoDelete,
      boolean internal,
      Map<String, Object> arguments)
      throws IOException {
    delegate.exchangeDeclareNoWait(exchange, type, durable, autoDelete, internal, arguments);
  }

  @Override
  public AMQP.Exchange.DeclareOk exchangeDeclarePassive(String exchange) throws IOException {
    return delegate.exchangeDeclarePassive(exchange);
  }

  @Override
  public AMQP.Exchange.DeleteOk exchangeDelete(String exchange) throws IOException {
    return delegate.exchangeDelete(exchange);
  }

  @Override
  public AMQP.Exchange.DeleteOk exchangeDelete(String exchange, boolean ifUnused)
      throws IOException {
    return delegate.exchangeDelete(exchange, ifUnused);
  }

  @Override
  public void exchangeDeleteNoWait(String exchange, boolean ifUnused) throws IOException {
    delegate.exchangeDeleteNoWait(exchange, ifUnused);
  }

  @Override
  public AMQP.Exchange.BindOk exchangeBind(
      String destination, String source, String routingKey, Map<String, Object> arguments)
      throws IOException {
    return delegate.exchangeBind(destination, source, routingKey, arguments);
  }

  @Override
  public AMQP.Exchange.BindOk exchangeBind(String destination, String source, String routingKey)
      throws IOException {
    return delegate.exchangeBind(destination, source, routingKey);
  }

  @Override
  public void exchangeBindNoWait(
      String destination, String source, String routingKey, Map<String, Object> arguments)
      throws IOException {
    delegate.exchangeBindNoWait(destination, source, routingKey, arguments);
  }

  @Override
  public long messageCount(String queue) throws IOException {
    return delegate.messageCount(queue);
  }

  @Override
  public long consumerCount(String queue) throws IOException {
    return delegate.consumerCount(queue);
  }
}
