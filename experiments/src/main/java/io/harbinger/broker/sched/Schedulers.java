package io.harbinger.broker.sched;

import io.harbinger.predictor.Ticker;

/** Builds the scheduler of an arm. */
public final class Schedulers {

  private Schedulers() {}

  /**
   * Creates the scheduler for an arm: a {@link FairScheduler} for {@link Policy#FAIR} (levels,
   * selection and aging do not apply), otherwise a {@link LevelScheduler} as configured.
   *
   * @param policy the arm
   * @param config levels, selection and aging
   * @param ticker the clock (simulated time in the simulator)
   * @return a new scheduler
   */
  public static Scheduler create(Policy policy, SchedulerConfig config, Ticker ticker) {
    if (policy == Policy.FAIR) {
      return new FairScheduler(ticker);
    }
    return new LevelScheduler(config.levels(), config.newSelector(), config.newAging(), ticker);
  }
}
