package io.harbinger.scheduler;

/**
 * Every message at one level: FIFO (level 0), or the single queue under fair queueing. Immutable
 * and thread-safe.
 */
final class FixedIngress implements IngressPolicy {

  private final String name;
  private final int level;

  FixedIngress(String name, int level) {
    this.name = name;
    this.level = level;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void route(QueuedJob job) {
    job.place(level);
  }
}
