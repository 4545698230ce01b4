package io.harbinger.scheduler;

/**
 * Strict priority: every pull is served from the lowest-numbered non-empty level. Stateless, so one
 * instance serves any number of schedulers and is thread-safe.
 */
public final class StrictLevelSelector implements LevelSelector {

  /** The shared instance. */
  public static final StrictLevelSelector INSTANCE = new StrictLevelSelector();

  private StrictLevelSelector() {}

  @Override
  public int select(int nonEmptyMask) {
    return nonEmptyMask == 0 ? -1 : Integer.numberOfTrailingZeros(nonEmptyMask);
  }

  @Override
  public void charge(int level, double costMillis) {}

  @Override
  public void refund(int level, double costMillis) {}

  @Override
  public void activated(int level) {}

  @Override
  public boolean usesCost() {
    return false;
  }

  @Override
  public String toString() {
    return "StrictLevelSelector";
  }
}
