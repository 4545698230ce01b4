package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ReturnListener;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Gives the listeners of a wrapped channel returned messages with the caller's properties, not the
 * stamped ones RabbitMQ sends back.
 *
 * <p>Implementation notes. Only a publish with {@code mandatory} or {@code immediate} can come
 * back, so only those are remembered: the caller's properties under the message's identity (its
 * {@code x-harbinger} stamp, exchange, routing key and body length), in a bounded map whose oldest
 * entries are forgotten (a routed message is never returned, so most entries are never claimed). A
 * return whose publish was forgotten gets its properties with the {@code x-harbinger} header taken
 * out (its priority and {@code user-id} are then the stamped ones).
 *
 * <p>Thread-safe: each call holds the instance lock for one map operation.
 */
final class ReturnedMessages {

  private final Map<Key, AMQP.BasicProperties> published;

  ReturnedMessages(int capacity) {
    published =
        new LinkedHashMap<>(64, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, AMQP.BasicProperties> eldest) {
            return size() > capacity;
          }
        };
  }

  /** One publish, as its return identifies it. */
  private record Key(String stamp, String exchange, String routingKey, long bodyLength) {}

  /** Remembers the caller's properties of a publish that may come back. */
  void remember(
      String exchange,
      String routingKey,
      long bodyLength,
      AMQP.BasicProperties stamped,
      AMQP.BasicProperties caller) {
    Key key = keyOf(stamped, exchange, routingKey, bodyLength);
    synchronized (this) {
      published.put(key, caller == null ? new AMQP.BasicProperties() : caller);
    }
  }

  /** Returns a return as the caller published it. */
  Return restore(Return r) {
    byte[] body = r.getBody();
    Key key =
        keyOf(
            r.getProperties(), r.getExchange(), r.getRoutingKey(), body == null ? 0 : body.length);
    AMQP.BasicProperties caller;
    synchronized (this) {
      caller = published.remove(key);
    }
    return new Return(
        r.getReplyCode(),
        r.getReplyText(),
        r.getExchange(),
        r.getRoutingKey(),
        caller != null ? caller : withoutStamps(r.getProperties()),
        body);
  }

  /** Wraps a listener so that it hears returns as the caller published them. */
  ReturnListener wrap(ReturnListener listener) {
    return new Restoring(listener);
  }

  private final class Restoring implements ReturnListener {
    private final ReturnListener delegate;

    Restoring(ReturnListener delegate) {
      this.delegate = delegate;
    }

    @Override
    public void handleReturn(
        int replyCode,
        String replyText,
        String exchange,
        String routingKey,
        AMQP.BasicProperties properties,
        byte[] body)
        throws java.io.IOException {
      Return r = restore(new Return(replyCode, replyText, exchange, routingKey, properties, body));
      delegate.handleReturn(
          replyCode, replyText, exchange, routingKey, r.getProperties(), r.getBody());
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Restoring other && other.delegate.equals(delegate);
    }

    @Override
    public int hashCode() {
      return delegate.hashCode();
    }
  }

  private static Key keyOf(
      AMQP.BasicProperties props, String exchange, String routingKey, long bodyLength) {
    Map<String, Object> headers = props == null ? null : props.getHeaders();
    Object at = headers == null ? null : headers.get(HarbingerHeaders.STAMP);
    // The stamp is a byte array (or a String) when published; RabbitMQ sends back the same type.
    return new Key(StampHeader.text(at), exchange, routingKey, bodyLength);
  }

  private static AMQP.BasicProperties withoutStamps(AMQP.BasicProperties props) {
    if (props == null || props.getHeaders() == null) {
      return props;
    }
    Map<String, Object> headers = new HashMap<>(props.getHeaders());
    headers.remove(HarbingerHeaders.STAMP);
    return props.builder().headers(headers.isEmpty() ? null : headers).build();
  }
}
