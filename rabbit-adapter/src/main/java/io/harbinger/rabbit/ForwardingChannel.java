package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.CancelCallback;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Command;
import com.rabbitmq.client.ConfirmCallback;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.ConsumerShutdownSignalCallback;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ReturnCallback;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * A {@link Channel} that forwards every call, unchanged, to a delegate channel.
 *
 * <p>Subclasses override the calls they intercept. Every method of {@link Channel} and its
 * super-interfaces, the default ones included, is declared here or, for the exchange and queue
 * methods, in {@link TopologyForwardingChannel}, and forwards to the same method of the delegate,
 * so a default method added to {@code Channel} later can never bypass a subclass by falling back to
 * its default body.
 *
 * <p>Implementation notes. The method bodies were generated mechanically from the interface by
 * reflection (one forward per method, parameters renamed to the RabbitMQ client's names) and are
 * kept honest by {@code ForwardingChannelTest}, which fails when {@code Channel} has a method that
 * neither class declares and checks that each one reaches the delegate with the same arguments. The
 * delegation is split in two by AMQP class, the topology methods and the rest, only to keep each
 * file short. A hand-written class was chosen over a {@link java.lang.reflect.Proxy} because the
 * publish path must cost microseconds: a proxy boxes every argument into an array and dispatches
 * reflectively on every call, and it loses checked exceptions unless each one is unwrapped.
 *
 * <p>Thread safety: as thread-safe as the delegate; this class holds no state but the delegate.
 */
abstract non-sealed class ForwardingChannel extends TopologyForwardingChannel {

  /**
   * Creates a forwarding channel.
   *
   * @param delegate the channel to forward to
   */
  ForwardingChannel(Channel delegate) {
    super(delegate);
  }

  @Override
  public void close() throws IOException, TimeoutException {
    delegate.close();
  }

  @Override
  public void close(int closeCode, String closeMessage) throws IOException, TimeoutException {
    delegate.close(closeCode, closeMessage);
  }

  @Override
  public void abort(int closeCode, String closeMessage) throws IOException {
    delegate.abort(closeCode, closeMessage);
  }

  @Override
  public void abort() throws IOException {
    delegate.abort();
  }

  @Override
  public int getChannelNumber() {
    return delegate.getChannelNumber();
  }

  @Override
  public GetResponse basicGet(String queue, boolean autoAck) throws IOException {
    return delegate.basicGet(queue, autoAck);
  }

  @Override
  public void basicAck(long deliveryTag, boolean multiple) throws IOException {
    delegate.basicAck(deliveryTag, multiple);
  }

  @Override
  public void basicNack(long deliveryTag, boolean multiple, boolean requeue) throws IOException {
    delegate.basicNack(deliveryTag, multiple, requeue);
  }

  @Override
  public void basicReject(long deliveryTag, boolean requeue) throws IOException {
    delegate.basicReject(deliveryTag, requeue);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(
        queue, autoAck, deliverCallback, cancelCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(queue, autoAck, deliverCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue, boolean autoAck, DeliverCallback deliverCallback, CancelCallback cancelCallback)
      throws IOException {
    return delegate.basicConsume(queue, autoAck, deliverCallback, cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback)
      throws IOException {
    return delegate.basicConsume(queue, autoAck, arguments, deliverCallback, cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(
        queue, autoAck, arguments, deliverCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(
        queue, autoAck, arguments, deliverCallback, cancelCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(String queue, Consumer callback) throws IOException {
    return delegate.basicConsume(queue, callback);
  }

  @Override
  public String basicConsume(
      String queue, boolean autoAck, Map<String, Object> arguments, Consumer callback)
      throws IOException {
    return delegate.basicConsume(queue, autoAck, arguments, callback);
  }

  @Override
  public String basicConsume(
      String queue, DeliverCallback deliverCallback, CancelCallback cancelCallback)
      throws IOException {
    return delegate.basicConsume(queue, deliverCallback, cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(queue, deliverCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(queue, deliverCallback, cancelCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(String queue, boolean autoAck, Consumer callback) throws IOException {
    return delegate.basicConsume(queue, autoAck, callback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(
        queue, autoAck, consumerTag, deliverCallback, cancelCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      Consumer callback)
      throws IOException {
    return delegate.basicConsume(
        queue, autoAck, consumerTag, noLocal, exclusive, arguments, callback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback)
      throws IOException {
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        deliverCallback,
        cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        deliverCallback,
        shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      boolean noLocal,
      boolean exclusive,
      Map<String, Object> arguments,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(
        queue,
        autoAck,
        consumerTag,
        noLocal,
        exclusive,
        arguments,
        deliverCallback,
        cancelCallback,
        shutdownSignalCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliverCallback,
      CancelCallback cancelCallback)
      throws IOException {
    return delegate.basicConsume(queue, autoAck, consumerTag, deliverCallback, cancelCallback);
  }

  @Override
  public String basicConsume(
      String queue,
      boolean autoAck,
      String consumerTag,
      DeliverCallback deliverCallback,
      ConsumerShutdownSignalCallback shutdownSignalCallback)
      throws IOException {
    return delegate.basicConsume(
        queue, autoAck, consumerTag, deliverCallback, shutdownSignalCallback);
  }

  @Override
  public String basicConsume(String queue, boolean autoAck, String consumerTag, Consumer callback)
      throws IOException {
    return delegate.basicConsume(queue, autoAck, consumerTag, callback);
  }

  @Override
  public void basicCancel(String consumerTag) throws IOException {
    delegate.basicCancel(consumerTag);
  }

  @Override
  public AMQP.Basic.RecoverOk basicRecover() throws IOException {
    return delegate.basicRecover();
  }

  @Override
  public AMQP.Basic.RecoverOk basicRecover(boolean requeue) throws IOException {
    return delegate.basicRecover(requeue);
  }

  @Override
  public AMQP.Tx.SelectOk txSelect() throws IOException {
    return delegate.txSelect();
  }

  @Override
  public AMQP.Tx.CommitOk txCommit() throws IOException {
    return delegate.txCommit();
  }

  @Override
  public AMQP.Tx.RollbackOk txRollback() throws IOException {
    return delegate.txRollback();
  }

  @Override
  public AMQP.Confirm.SelectOk confirmSelect() throws IOException {
    return delegate.confirmSelect();
  }

  @Override
  public long getNextPublishSeqNo() {
    return delegate.getNextPublishSeqNo();
  }

  @Override
  public boolean waitForConfirms(long timeoutMillis) throws InterruptedException, TimeoutException {
    return delegate.waitForConfirms(timeoutMillis);
  }

  @Override
  public boolean waitForConfirms() throws InterruptedException {
    return delegate.waitForConfirms();
  }

  @Override
  public void waitForConfirmsOrDie() throws IOException, InterruptedException {
    delegate.waitForConfirmsOrDie();
  }

  @Override
  public void waitForConfirmsOrDie(long timeoutMillis)
      throws IOException, InterruptedException, TimeoutException {
    delegate.waitForConfirmsOrDie(timeoutMillis);
  }

  @Override
  public void asyncRpc(Method method) throws IOException {
    delegate.asyncRpc(method);
  }

  @Override
  public Command rpc(Method method) throws IOException {
    return delegate.rpc(method);
  }

  @Override
  public Connection getConnection() {
    return delegate.getConnection();
  }

  @Override
  public ReturnListener addReturnListener(ReturnCallback callback) {
    return delegate.addReturnListener(callback);
  }

  @Override
  public void addReturnListener(ReturnListener listener) {
    delegate.addReturnListener(listener);
  }

  @Override
  public boolean removeReturnListener(ReturnListener listener) {
    return delegate.removeReturnListener(listener);
  }

  @Override
  public void clearReturnListeners() {
    delegate.clearReturnListeners();
  }

  @Override
  public void addConfirmListener(ConfirmListener listener) {
    delegate.addConfirmListener(listener);
  }

  @Override
  public ConfirmListener addConfirmListener(
      ConfirmCallback ackCallback, ConfirmCallback nackCallback) {
    return delegate.addConfirmListener(ackCallback, nackCallback);
  }

  @Override
  public boolean removeConfirmListener(ConfirmListener listener) {
    return delegate.removeConfirmListener(listener);
  }

  @Override
  public void clearConfirmListeners() {
    delegate.clearConfirmListeners();
  }

  @Override
  public Consumer getDefaultConsumer() {
    return delegate.getDefaultConsumer();
  }

  @Override
  public void setDefaultConsumer(Consumer consumer) {
    delegate.setDefaultConsumer(consumer);
  }

  @Override
  public void basicPublish(
      String exchange,
      String routingKey,
      boolean mandatory,
      boolean immediate,
      AMQP.BasicProperties props,
      byte[] body)
      throws IOException {
    delegate.basicPublish(exchange, routingKey, mandatory, immediate, props, body);
  }

  @Override
  public void basicPublish(
      String exchange,
      String routingKey,
      boolean mandatory,
      AMQP.BasicProperties props,
      byte[] body)
      throws IOException {
    delegate.basicPublish(exchange, routingKey, mandatory, props, body);
  }

  @Override
  public void basicPublish(
      String exchange, String routingKey, AMQP.BasicProperties props, byte[] body)
      throws IOException {
    delegate.basicPublish(exchange, routingKey, props, body);
  }

  @Override
  public void basicQos(int prefetchCount) throws IOException {
    delegate.basicQos(prefetchCount);
  }

  @Override
  public void basicQos(int prefetchSize, int prefetchCount, boolean global) throws IOException {
    delegate.basicQos(prefetchSize, prefetchCount, global);
  }

  @Override
  public void basicQos(int prefetchCount, boolean global) throws IOException {
    delegate.basicQos(prefetchCount, global);
  }

  @Override
  public CompletableFuture<Command> asyncCompletableRpc(Method method) throws IOException {
    return delegate.asyncCompletableRpc(method);
  }

  @Override
  public boolean isOpen() {
    return delegate.isOpen();
  }

  @Override
  public void notifyListeners() {
    delegate.notifyListeners();
  }

  @Override
  public void addShutdownListener(ShutdownListener listener) {
    delegate.addShutdownListener(listener);
  }

  @Override
  public void removeShutdownListener(ShutdownListener listener) {
    delegate.removeShutdownListener(listener);
  }

  @Override
  public ShutdownSignalException getCloseReason() {
    return delegate.getCloseReason();
  }
}
