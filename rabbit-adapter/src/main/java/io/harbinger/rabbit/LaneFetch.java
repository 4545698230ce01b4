package io.harbinger.rabbit;

/**
 * How a wrapped consumer of a lanes queue gets messages from the lanes.
 *
 * <p>The choice decides what a busy consumer holds. A message a consumer holds is invisible to the
 * other consumers of the lanes, so a short job held by a consumer that runs a long one waits for
 * it, while another consumer may be free.
 */
public enum LaneFetch {

  /**
   * Each lane has a consumer of its own with a prefetch ({@link LaneOptions#lanePrefetch}), so the
   * next delivery of every lane is already held while the application runs a job, and the
   * scheduling core chooses among what is held.
   */
  PUSH,

  /**
   * The consumer takes a message only when its application has room for one: from the lane the
   * scheduling core picks ({@code basic.get}), trying the next lane it picks when that one is
   * empty. Only while every lane is empty does it subscribe to the lanes (prefetch 1 each), and it
   * cancels those subscriptions as soon as the application is busy again, so a busy consumer holds
   * at most what reached it while it was cancelling. Needs a consumer prefetch (without one the
   * lanes are consumed as with {@link #PUSH}), and does not support exclusive consumers.
   */
  PULL,

  /**
   * The default: {@link #PULL} on classic lanes and {@link #PUSH} on quorum lanes, what measured
   * best on each. On the production flow (RabbitMQ 4.0.5, millisecond jobs) pulled classic lanes
   * cut FIFO's mean by 61.4%, level with a classic priority queue, where pushed ones cut it by
   * 48.7%; on quorum lanes, whose {@code basic.get} costs more (a pulling consumer drained them at
   * 0.42 of a plain consumer's rate), the pushed ones measured -51.0% and pulled ones were not
   * measured on that flow. An exclusive consumer, which pulled lanes cannot have, is pushed.
   */
  BY_QUEUE_TYPE;

  /**
   * Returns how a consumer of lanes of a type gets its messages.
   *
   * @param type the lanes' queue type
   * @param exclusive whether the consumer asked to be exclusive
   * @return {@link #PUSH} or {@link #PULL}: this, unless this is {@link #BY_QUEUE_TYPE}
   */
  LaneFetch on(QueueType type, boolean exclusive) {
    if (this != BY_QUEUE_TYPE) {
      return this;
    }
    return type == QueueType.CLASSIC && !exclusive ? PULL : PUSH;
  }
}
