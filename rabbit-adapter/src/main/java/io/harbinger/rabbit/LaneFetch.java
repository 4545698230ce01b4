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
  PULL
}
