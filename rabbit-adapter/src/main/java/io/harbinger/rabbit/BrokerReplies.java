package io.harbinger.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;

/** Reads what RabbitMQ replied from the exceptions the Java client wraps it in. */
final class BrokerReplies {

  private BrokerReplies() {}

  /**
   * Returns RabbitMQ's reply behind a failed call, such as {@code 406 PRECONDITION_FAILED -
   * inequivalent arg 'x-max-priority' ...}, or the exception's own message when there is none.
   *
   * @param e what the client threw
   * @return the reply code and text of the channel close, or a description
   */
  static String reasonOf(IOException e) {
    Throwable t = e;
    while (t != null) {
      if (t instanceof ShutdownSignalException s) {
        Object reason = s.getReason();
        return reason instanceof AMQP.Channel.Close close
            ? close.getReplyCode() + " " + close.getReplyText()
            : s.getMessage();
      }
      t = t.getCause();
    }
    return e.getMessage();
  }
}
