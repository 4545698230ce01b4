package io.harbinger.broker;

import com.google.protobuf.ByteString;
import io.harbinger.scheduler.QueuedJob;
import java.util.Map;

/**
 * A message held by the broker: the scheduler's job plus what is delivered. Guarded by the lock.
 */
final class StoredMessage extends QueuedJob {

  enum State {
    QUEUED,
    IN_FLIGHT,
    DONE,
    DEAD
  }

  final String id;
  final ByteString payload;
  final Map<String, String> headers;
  State state = State.QUEUED;
  int deliveries;
  int failures;
  Delivery live;

  StoredMessage(
      String id,
      ByteString payload,
      Map<String, String> headers,
      String key,
      String jobType,
      long sizeHint,
      int oracleTier) {
    super(key, jobType, sizeHint, oracleTier);
    this.id = id;
    this.payload = payload;
    this.headers = headers;
  }
}
