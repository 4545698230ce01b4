package io.harbinger.broker.sched;

/** Every message at one level: FIFO (level 0), or the single queue under fair queueing. */
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
  public void route(Job job) {
    job.place(level);
  }
}
