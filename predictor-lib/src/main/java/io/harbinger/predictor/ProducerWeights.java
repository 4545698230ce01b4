package io.harbinger.predictor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each producer's part of the pooled histogram and its long-run share of the reports, and the caps
 * that bound how much one producer's reports weigh in what every producer's routing is computed
 * from: the level boundaries, the pooled median and the global safeguard's totals.
 *
 * <p>A producer is the part of a key before the first {@link Keys#SEPARATOR} (the whole key when it
 * has none): the RabbitMQ user-id that RabbitMQ validated, so a reporter trusted only for its own
 * producer reports only about that producer's keys (seed paper section 3.4).
 *
 * <p>The cap. A producer may hold at most its limit, max({@value #NEWCOMER_SHARE}, {@value
 * #LONG_RUN_FACTOR} x its long-run share), of the weight, where its long-run share is its share of
 * the reports over a memory {@value #LONG_MEMORY} times as long as the pooled histogram's. A
 * producer over its limit is scaled down to it, and the weight it loses goes to the other producers
 * in proportion to their own, none raised above {@value #LONG_RUN_FACTOR} x its long-run share (or
 * its own share, where that is more); what they cannot take stays with the capped producers.
 * Example, with the default pooled decay 0.9999 (a memory of 10,000 reports, so a long memory of
 * 640,000): a service has reported 200,000 durations when another producer sends 20,000 reports of
 * 30 minutes in a burst. The burst then holds 86% of the pooled weight but only 10.6% of the
 * long-run weight, so its limit is 21%: it counts for 21% and the service for 79%. A producer that
 * has always sent most of the reports has a limit above 1 and is never capped; a producer that
 * sends a few reports weighs a few reports, because a producer with no long-run share is never
 * raised; and with a single producer nothing is ever capped.
 *
 * <p>Guarantee. Where a producer holds a share s of the weight that the boundaries are taken from,
 * a boundary at pooled quantile q lies between the other producers' quantiles (q - s) / (1 - s) and
 * q / (1 - s) (their lowest or highest duration where these fall outside [0, 1]): below any
 * duration the pooled share is at least (1 - s) times the others' and at most that plus s. The
 * share s is at most the producer's limit whenever the others' long-run shares leave room for the
 * weight it loses, which is always the case when the long-run weight belongs to the producers
 * reporting now. So a producer's reports, however many, move another producer's boundaries only
 * that far, and a producer gains long-run share only by reporting as long as the others have: after
 * n reports, against others holding a long-run weight W (in reports, at most 640,000), at most n /
 * (n + W). In the example, each of the two boundaries of equal quantiles stays within the service's
 * own 15th to 42nd and 58th to 85th percentiles.
 *
 * <p>Implementation notes. A tracked producer keeps a histogram over the pooled histogram's bins,
 * in its scaled units (seed paper equation 1 with the pooled decay), so adding a report is one bin
 * and a few sums, and the producers' parts add up to the pooled histogram; the long-run weights
 * decay the same way with their own scale. The caps are computed only when the boundaries are
 * recomputed. At most {@value #MAX_TRACKED} producers are tracked; the others share one entry,
 * capped like a producer. While every entry is taken, a tracked producer whose weight and long-run
 * weight both fall below 1/{@value #EVICT_DIVISOR} of the totals gives its entry up at a refresh,
 * its weight joining the shared one, and the producer that reports most among the untracked (a
 * majority vote) replaces the lightest tracked one once it outweighs it, so a flooding producer is
 * tracked, and capped, within one refresh. Snapshots hold no producers: on a restore, the restored
 * weight is shared among the producers of the restored keys ({@link #restore}).
 *
 * <p>Not thread-safe: the owner guards it.
 */
final class ProducerWeights {

  /** Producers tracked separately; the rest share one entry. */
  static final int MAX_TRACKED = 64;

  /** Index of the entry the untracked producers share. */
  static final int UNTRACKED = MAX_TRACKED;

  /** Entries: the tracked producers and the shared one. */
  static final int ENTRIES = MAX_TRACKED + 1;

  /** The share any producer may hold whatever its history. */
  static final double NEWCOMER_SHARE = 0.125;

  /** How many times its long-run share a producer may hold. */
  static final double LONG_RUN_FACTOR = 2;

  /** How many times longer the long-run shares remember than the pooled histogram. */
  static final int LONG_MEMORY = 64;

  /** A tracked producer below 1/this of the weight and of the long-run weight is dropped. */
  static final int EVICT_DIVISOR = 4 * MAX_TRACKED;

  private static final double RENORMALISE_ABOVE = DurationHistogram.RENORMALISE_ABOVE;

  private final double inverseLongDecay;
  private final String[] keys = new String[MAX_TRACKED];
  private final int[] cuts = new int[MAX_TRACKED];
  private final int[] hashes = new int[MAX_TRACKED];
  private final int[] index = new int[4 * MAX_TRACKED];
  private final int[] free = new int[MAX_TRACKED];
  private int freeCount;
  private final float[][] bins = new float[MAX_TRACKED][HistogramLayout.BIN_COUNT];
  private final double[] weights = new double[ENTRIES];
  private final double[] longRun = new double[ENTRIES];
  private double longScale = 1;
  private double longTotal;
  private float[] restored;
  private String candidateKey;
  private int candidateCut;
  private int candidateHash;
  private int candidateVotes;
  private double candidateWeight;
  private final double[] shares = new double[ENTRIES];
  private final double[] limits = new double[ENTRIES];
  private final double[] factors = new double[ENTRIES];
  private final byte[] scratch = new byte[ENTRIES];

  /**
   * Creates an empty table.
   *
   * @param inverseDecay 1 / the pooled decay
   */
  ProducerWeights(double inverseDecay) {
    inverseLongDecay = Math.pow(inverseDecay, 1.0 / LONG_MEMORY);
    for (int i = 0; i < MAX_TRACKED; i++) {
      free[i] = MAX_TRACKED - 1 - i;
    }
    freeCount = MAX_TRACKED;
    Arrays.fill(limits, Double.POSITIVE_INFINITY);
    Arrays.fill(shares, 1);
  }

  /**
   * Adds one report to its producer's entry, tracking the producer if there is room.
   *
   * @param key a valid key
   * @param bin the report's bin
   * @param weight the pooled histogram's scale when the report was added to it
   * @return the producer's entry, in [0, {@link #ENTRIES})
   */
  int add(String key, int bin, double weight) {
    int cut = producerEnd(key);
    int hash = hash(key, cut);
    int entry = find(key, cut, hash);
    if (entry < 0 && freeCount > 0) {
      entry = admit(key, cut, hash);
    }
    if (entry < 0) {
      entry = UNTRACKED;
      vote(key, cut, hash, weight);
    } else {
      bins[entry][bin] += (float) weight;
    }
    weights[entry] += weight;
    longRun[entry] += longScale;
    longTotal += longScale;
    longScale *= inverseLongDecay;
    if (longScale > RENORMALISE_ABOVE) {
      for (int e = 0; e < ENTRIES; e++) {
        longRun[e] /= longScale;
      }
      longTotal /= longScale;
      longScale = 1;
    }
    return entry;
  }

  /**
   * Multiplies every stored weight by a factor, as the pooled histogram just did to its own.
   *
   * @param factor in (0, 1)
   */
  void rescale(double factor) {
    for (int e = 0; e < MAX_TRACKED; e++) {
      float[] b = bins[e];
      for (int i = 0; i < b.length; i++) {
        b[i] = (float) (b[i] * factor);
      }
    }
    for (int e = 0; e < ENTRIES; e++) {
      weights[e] *= factor;
    }
    if (restored != null) {
      for (int i = 0; i < restored.length; i++) {
        restored[i] = (float) (restored[i] * factor);
      }
    }
    candidateWeight *= factor;
  }

  /**
   * Rebuilds the producers' parts after the pooled histogram was restored from a snapshot, which
   * holds no producers: each bin's restored weight is shared among the producers of the restored
   * keys in proportion to their keys' weight in that bin (each key's histogram scaled to its
   * observation count), and their long-run shares are their shares of those observations, up to the
   * long memory's full weight. Weight in bins no restored key holds belongs to nobody: it is
   * neither capped nor counted in the shares, and fades with the pooled decay.
   *
   * @param pooled the restored pooled histogram
   * @param keys the restored keys
   */
  void restore(DurationHistogram pooled, List<SnapshotCodec.StagedKey> keys) {
    Arrays.fill(this.keys, null);
    Arrays.fill(index, 0);
    for (int i = 0; i < MAX_TRACKED; i++) {
      free[i] = MAX_TRACKED - 1 - i;
      Arrays.fill(bins[i], 0f);
    }
    freeCount = MAX_TRACKED;
    Arrays.fill(weights, 0);
    Arrays.fill(longRun, 0);
    Arrays.fill(limits, Double.POSITIVE_INFINITY);
    Arrays.fill(shares, 1);
    longScale = 1;
    longTotal = 0;
    candidateKey = null;
    candidateVotes = 0;
    candidateWeight = 0;

    Map<String, Restored> byProducer = new HashMap<>();
    double observations = 0;
    for (SnapshotCodec.StagedKey k : keys) {
      DurationHistogram h = k.histogram;
      if (!(h.total > 0) || h.observations == 0) {
        continue;
      }
      int cut = producerEnd(k.key);
      Restored r =
          byProducer.computeIfAbsent(k.key.substring(0, cut), n -> new Restored(k.key, cut));
      double perWeight = h.observations / h.total;
      for (int b = 0; b < HistogramLayout.BIN_COUNT; b++) {
        r.mass[b] += h.bins[b] * perWeight;
      }
      r.observations += h.observations;
      observations += h.observations;
    }
    List<Restored> producers = new ArrayList<>(byProducer.values());
    producers.sort((a, b) -> Double.compare(b.observations, a.observations));
    double[] all = new double[HistogramLayout.BIN_COUNT];
    for (Restored r : producers) {
      for (int b = 0; b < all.length; b++) {
        all[b] += r.mass[b];
      }
    }
    double longFull = 1 / (1 - 1 / inverseLongDecay);
    double longPerObservation =
        observations > 0 && Double.isFinite(longFull) ? Math.min(1, longFull / observations) : 1;
    restored = pooled.bins.clone();
    for (int i = 0; i < producers.size(); i++) {
      Restored r = producers.get(i);
      int entry = i < MAX_TRACKED ? admit(r.key, r.cut, hash(r.key, r.cut)) : UNTRACKED;
      for (int b = 0; b < all.length; b++) {
        if (all[b] > 0 && r.mass[b] > 0) {
          float part = (float) (pooled.bins[b] * (r.mass[b] / all[b]));
          if (entry != UNTRACKED) {
            bins[entry][b] += part;
          }
          weights[entry] += part;
          restored[b] -= part;
        }
      }
      longRun[entry] += r.observations * longPerObservation;
      longTotal += r.observations * longPerObservation;
    }
    for (int b = 0; b < restored.length; b++) {
      restored[b] = Math.max(0f, restored[b]);
    }
  }

  /** A restored producer: a key of it, and its keys' weight per bin and observations. */
  private static final class Restored {
    final String key;
    final int cut;
    final double[] mass = new double[HistogramLayout.BIN_COUNT];
    double observations;

    Restored(String key, int cut) {
      this.key = key;
      this.cut = cut;
    }
  }

  /**
   * Computes every entry's limit and the factor that caps its weight, from the weights and long-run
   * shares now.
   *
   * @return whether any entry is capped, so that {@link #combine} differs from the pooled histogram
   */
  boolean computeCaps() {
    for (int e = 0; e < ENTRIES; e++) {
      shares[e] = longTotal > 0 ? longRun[e] / longTotal : 1;
      limits[e] =
          longTotal > 0
              ? Math.max(NEWCOMER_SHARE, LONG_RUN_FACTOR * shares[e])
              : Double.POSITIVE_INFINITY;
    }
    return capFactors(weights, shares, limits, factors, scratch);
  }

  /**
   * Returns an entry's long-run share as of the last {@link #computeCaps}.
   *
   * @param entry in [0, {@link #ENTRIES})
   * @return in [0, 1]
   */
  double longRunShare(int entry) {
    return shares[entry];
  }

  /**
   * Returns an entry's limit as of the last {@link #computeCaps}: the share of the weight it may
   * hold.
   *
   * @param entry in [0, {@link #ENTRIES})
   * @return at least {@value #NEWCOMER_SHARE}, or infinity before any report
   */
  double limit(int entry) {
    return limits[entry];
  }

  /**
   * Writes into {@code into} the pooled histogram with every capped producer's part scaled by its
   * factor from the last {@link #computeCaps}; only the bins and the total are set.
   *
   * @param pooled the pooled histogram
   * @param into the histogram to fill
   */
  void combine(DurationHistogram pooled, DurationHistogram into) {
    float[] out = into.bins;
    System.arraycopy(pooled.bins, 0, out, 0, out.length);
    double cut = 1 - factors[UNTRACKED];
    if (cut > 0) {
      for (int b = 0; b < out.length; b++) {
        double shared = pooled.bins[b] - (restored == null ? 0 : restored[b]);
        for (int e = 0; e < MAX_TRACKED; e++) {
          shared -= bins[e][b];
        }
        out[b] = (float) (out[b] - cut * Math.max(0, shared));
      }
    }
    for (int e = 0; e < MAX_TRACKED; e++) {
      double c = 1 - factors[e];
      if (c > 0) {
        float[] part = bins[e];
        for (int b = 0; b < out.length; b++) {
          out[b] = (float) (out[b] - c * part[b]);
        }
      }
    }
    double total = 0;
    for (int b = 0; b < out.length; b++) {
      if (!(out[b] > 0)) {
        out[b] = 0;
      }
      total += out[b];
    }
    into.total = total;
    into.boundsFromBins();
  }

  /**
   * While every entry is taken, drops the tracked producers that weigh almost nothing, and lets the
   * untracked producer that reports most replace the lightest tracked one once it outweighs it.
   *
   * @return a bit per tracked entry that now belongs to nobody or to another producer
   */
  long evict() {
    if (freeCount > 0) {
      return 0;
    }
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    long dropped = 0;
    int lightest = -1;
    for (int e = 0; e < MAX_TRACKED; e++) {
      if (keys[e] == null) {
        continue;
      }
      if (weights[e] * EVICT_DIVISOR < total && longRun[e] * EVICT_DIVISOR < longTotal) {
        drop(e);
        dropped |= 1L << e;
      } else if (lightest < 0 || weights[e] < weights[lightest]) {
        lightest = e;
      }
    }
    if (freeCount == 0
        && candidateKey != null
        && lightest >= 0
        && candidateWeight > weights[lightest]) {
      drop(lightest);
      dropped |= 1L << lightest;
      admit(candidateKey, candidateCut, candidateHash);
      candidateKey = null;
      candidateVotes = 0;
      candidateWeight = 0;
    }
    if (dropped != 0) {
      reindex();
    }
    return dropped;
  }

  /**
   * Computes the factors that cap shares: every entry whose share of the weight passes its limit is
   * brought down to its limit, and the weight it loses goes to the others in proportion to their
   * weight, none raised beyond {@value #LONG_RUN_FACTOR} times its long-run share (or its own share
   * where that is more); what they cannot take goes back to the capped entries in proportion to
   * what each lost. The factors are scaled so that the largest is 1.
   *
   * @param weights each entry's weight, non-negative
   * @param longRun each entry's long-run share, in [0, 1]
   * @param limits each entry's limit, positive
   * @param factors out: each entry's factor, in (0, 1]
   * @param state scratch, the same length
   * @return whether any entry is capped
   */
  static boolean capFactors(
      double[] weights, double[] longRun, double[] limits, double[] factors, byte[] state) {
    Arrays.fill(factors, 1);
    double total = 0;
    int present = 0;
    for (double w : weights) {
      if (w > 0) {
        total += w;
        present++;
      }
    }
    if (present < 2) {
      return false;
    }
    double lost = 0;
    double raised = 0;
    for (int e = 0; e < weights.length; e++) {
      double share = weights[e] / total;
      if (weights[e] > 0 && share > limits[e]) {
        state[e] = CAPPED;
        lost += share - limits[e];
      } else {
        state[e] = weights[e] > 0 ? FREE : ABSENT;
        raised += share;
      }
    }
    if (!(lost > 0)) {
      return false;
    }
    // The uncapped entries take what the capped lose, in proportion, each up to its ceiling.
    double need = raised + lost;
    double proportional = 1;
    boolean full = true;
    for (boolean again = true; again; ) {
      again = false;
      double free = 0;
      double fixed = 0;
      for (int e = 0; e < weights.length; e++) {
        if (state[e] == FREE) {
          free += weights[e] / total;
        } else if (state[e] == FULL) {
          fixed += ceiling(weights[e] / total, longRun[e]);
        }
      }
      full = !(free > 0);
      if (full) {
        break;
      }
      proportional = (need - fixed) / free;
      for (int e = 0; e < weights.length; e++) {
        double share = weights[e] / total;
        if (state[e] == FREE && proportional * share > ceiling(share, longRun[e])) {
          state[e] = FULL;
          again = true;
        }
      }
    }
    double taken = 0;
    for (int e = 0; e < weights.length; e++) {
      double share = weights[e] / total;
      if (state[e] == FREE) {
        factors[e] = proportional;
        taken += proportional * share;
      } else if (state[e] == FULL) {
        factors[e] = ceiling(share, longRun[e]) / share;
        taken += ceiling(share, longRun[e]);
      }
    }
    double back = Math.max(0, need - taken);
    double largest = 0;
    for (int e = 0; e < weights.length; e++) {
      double share = weights[e] / total;
      if (state[e] == CAPPED) {
        factors[e] = (limits[e] + back * (share - limits[e]) / lost) / share;
      }
      if (state[e] != ABSENT) {
        largest = Math.max(largest, factors[e]);
      }
    }
    for (int e = 0; e < weights.length; e++) {
      factors[e] = state[e] == ABSENT ? 1 : factors[e] / largest;
    }
    return true;
  }

  private static final byte ABSENT = 0;
  private static final byte FREE = 1;
  private static final byte FULL = 2;
  private static final byte CAPPED = 3;

  /** The share an uncapped entry may be raised to. */
  private static double ceiling(double share, double longRun) {
    return Math.max(share, LONG_RUN_FACTOR * longRun);
  }

  /** Returns the end of the producer in a key: the first separator, or the key's length. */
  static int producerEnd(String key) {
    int cut = key.indexOf(Keys.SEPARATOR);
    return cut < 0 ? key.length() : cut;
  }

  private static int hash(String key, int cut) {
    int h = 0;
    for (int i = 0; i < cut; i++) {
      h = 31 * h + key.charAt(i);
    }
    return h ^ (h >>> 16);
  }

  private boolean matches(int entry, String key, int cut, int hash) {
    return hashes[entry] == hash && cuts[entry] == cut && keys[entry].regionMatches(0, key, 0, cut);
  }

  private int find(String key, int cut, int hash) {
    int mask = index.length - 1;
    for (int i = hash & mask; ; i = (i + 1) & mask) {
      int slot = index[i];
      if (slot == 0) {
        return -1;
      }
      if (matches(slot - 1, key, cut, hash)) {
        return slot - 1;
      }
    }
  }

  private int admit(String key, int cut, int hash) {
    int entry = free[--freeCount];
    keys[entry] = key;
    cuts[entry] = cut;
    hashes[entry] = hash;
    insert(entry);
    return entry;
  }

  private void insert(int entry) {
    int mask = index.length - 1;
    int i = hashes[entry] & mask;
    while (index[i] != 0) {
      i = (i + 1) & mask;
    }
    index[i] = entry + 1;
  }

  private void reindex() {
    Arrays.fill(index, 0);
    for (int e = 0; e < MAX_TRACKED; e++) {
      if (keys[e] != null) {
        insert(e);
      }
    }
  }

  /** Gives an entry up: its weight joins the shared entry's and its bins become the shared ones. */
  private void drop(int entry) {
    keys[entry] = null;
    Arrays.fill(bins[entry], 0f);
    weights[UNTRACKED] += weights[entry];
    weights[entry] = 0;
    longRun[UNTRACKED] += longRun[entry];
    longRun[entry] = 0;
    free[freeCount++] = entry;
  }

  /** Boyer-Moore majority vote over the untracked producers' reports. */
  private void vote(String key, int cut, int hash, double weight) {
    if (candidateKey != null
        && candidateHash == hash
        && candidateCut == cut
        && candidateKey.regionMatches(0, key, 0, cut)) {
      candidateVotes++;
      candidateWeight += weight;
    } else if (candidateVotes == 0) {
      candidateKey = key;
      candidateCut = cut;
      candidateHash = hash;
      candidateVotes = 1;
      candidateWeight = weight;
    } else {
      candidateVotes--;
    }
  }
}
