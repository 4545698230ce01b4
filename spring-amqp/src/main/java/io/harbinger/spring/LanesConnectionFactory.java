package io.harbinger.spring;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import io.harbinger.rabbit.ChannelOptions;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionListener;

/**
 * The connection factory of a listener container that consumes a lanes queue: the application's
 * factory, whose channels are {@link LaneListenerChannel} views. Everything else is the
 * application's factory's own.
 *
 * <p>Thread-safe, as the delegate.
 */
final class LanesConnectionFactory implements ConnectionFactory {

  private final ConnectionFactory delegate;
  private final ChannelOptions options;

  LanesConnectionFactory(ConnectionFactory delegate, ChannelOptions options) {
    this.delegate = delegate;
    this.options = options;
  }

  /** Returns the application's factory. */
  ConnectionFactory delegate() {
    return delegate;
  }

  @Override
  public Connection createConnection() throws AmqpException {
    return new LanesConnection(delegate.createConnection());
  }

  @Override
  public String getHost() {
    return delegate.getHost();
  }

  @Override
  public int getPort() {
    return delegate.getPort();
  }

  @Override
  public String getVirtualHost() {
    return delegate.getVirtualHost();
  }

  @Override
  public String getUsername() {
    return delegate.getUsername();
  }

  @Override
  public void addConnectionListener(ConnectionListener listener) {
    delegate.addConnectionListener(listener);
  }

  @Override
  public boolean removeConnectionListener(ConnectionListener listener) {
    return delegate.removeConnectionListener(listener);
  }

  @Override
  public void clearConnectionListeners() {
    delegate.clearConnectionListeners();
  }

  @Override
  public ConnectionFactory getPublisherConnectionFactory() {
    return delegate.getPublisherConnectionFactory();
  }

  @Override
  public boolean isSimplePublisherConfirms() {
    return delegate.isSimplePublisherConfirms();
  }

  @Override
  public boolean isPublisherConfirms() {
    return delegate.isPublisherConfirms();
  }

  @Override
  public boolean isPublisherReturns() {
    return delegate.isPublisherReturns();
  }

  @Override
  public void resetConnection() {
    delegate.resetConnection();
  }

  @Override
  public String toString() {
    return "Harbinger lanes view of " + delegate;
  }

  /** A connection whose channels are lanes views. */
  private final class LanesConnection implements Connection {
    private final Connection connection;

    LanesConnection(Connection connection) {
      this.connection = connection;
    }

    @Override
    public Channel createChannel(boolean transactional) throws AmqpException {
      return LaneListenerChannel.wrap(connection.createChannel(transactional), options);
    }

    @Override
    public void close() throws AmqpException {
      connection.close();
    }

    @Override
    public boolean isOpen() {
      return connection.isOpen();
    }

    @Override
    public int getLocalPort() {
      return connection.getLocalPort();
    }

    @Override
    public void addBlockedListener(BlockedListener listener) {
      connection.addBlockedListener(listener);
    }

    @Override
    public boolean removeBlockedListener(BlockedListener listener) {
      return connection.removeBlockedListener(listener);
    }

    @Override
    public com.rabbitmq.client.Connection getDelegate() {
      return connection.getDelegate();
    }

    @Override
    public void closeThreadChannel() {
      connection.closeThreadChannel();
    }
  }
}
