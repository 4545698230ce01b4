package io.harbinger.predictor;

/**
 * A queue whose undecided work hides known long jobs: each round has 9 short jobs of a proven key,
 * 10 jobs of keys never seen before (cold) that carry most of the work, and one proven long job.
 */
final class UndecidedWork {

  static final double MS = 1_000_000;

  /** The proven short key, 2 ms. */
  static final String FAST = Keys.of("shop", "reserve_inventory");

  /** The proven long key, 2 s. */
  static final String SLOW = Keys.of("shop", "export_report");

  private UndecidedWork() {}

  /** Observes one round; the cold keys are new in every round. */
  static void round(Predictor p, int round) {
    for (int i = 0; i < 9; i++) {
      p.observe(FAST, 2 * MS);
    }
    for (int i = 0; i < 10; i++) {
      p.observe(Keys.of("tenant" + round + "-" + i, "import"), 500 * MS);
    }
    p.observe(SLOW, 2000 * MS);
  }
}
