package io.harbinger.scheduler;

import io.harbinger.predictor.Ticker;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Per-job-type fair queueing: each job type ({@link QueuedJob#flow}) has its own FIFO, and the
 * flows share worker time equally. No prediction is used: the paper's strongest baseline, which
 * beat predictive routing on mean latency.
 *
 * <p>Example: a flow of 2 ms jobs and a flow of 600 ms jobs, both backlogged: the 2 ms flow is
 * served about 300 times for each job of the other, so each gets half the worker time.
 *
 * <p>Implementation notes: start-time fair queueing over flows. Each flow has a virtual clock; a
 * pull serves the non-empty flow with the smallest clock (a binary heap of active flows, ties to
 * the flow activated first) and charges it the flow's running average of acknowledged durations
 * (alpha 0.05), else 1 ms. When the handler's real duration is known ({@link #completed}) the
 * charge is corrected to it, so shares converge to real worker time even when the average is off. A
 * flow that becomes non-empty has its clock raised to the floor (the clock of the last flow
 * served), so an idle flow cannot bank credit. Flows are kept for the life of the scheduler, so
 * memory grows with the number of distinct job types. There are no levels and no aging: {@link
 * #levels()} is 1.
 *
 * <p>Not thread-safe; see {@link Scheduler}.
 */
public final class FairScheduler implements Scheduler {

  private static final class Flow extends JobDeque {
    final String name;
    final CostAverage cost = new CostAverage();
    double clock;
    int heapIndex = -1;
    long sequence;

    Flow(String name) {
      this.name = name;
    }
  }

  private final Ticker ticker;
  private final Map<String, Flow> flows = new HashMap<>();
  private Flow[] heap = new Flow[16];
  private int heapSize;
  private long activations;
  private double floor;
  private int size;
  private long pulls;
  private double chargedMillis;

  /**
   * Creates a fair scheduler.
   *
   * @param ticker the clock
   */
  public FairScheduler(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  @Override
  public int levels() {
    return 1;
  }

  @Override
  public void submit(QueuedJob job) {
    if (job.deque != null) {
      throw new IllegalStateException("job is already queued: " + job);
    }
    long now = ticker.nanos();
    job.arrivalNanos = now;
    job.enqueueNanos = now;
    job.level = 0;
    job.originalLevel = 0;
    add(flows.computeIfAbsent(job.flow(), Flow::new), job, false);
  }

  private void add(Flow flow, QueuedJob job, boolean refund) {
    boolean wasEmpty = flow.isEmpty();
    if (refund) {
      flow.addFirst(job);
    } else {
      flow.addLast(job);
    }
    size++;
    if (wasEmpty) {
      if (!refund) {
        // a refunded flow keeps its clock and its place among equal clocks
        flow.clock = Math.max(flow.clock, floor);
        flow.sequence = activations++;
      }
      heapInsert(flow);
    }
  }

  @Override
  public QueuedJob poll() {
    if (heapSize == 0) {
      return null;
    }
    Flow flow = heap[0];
    QueuedJob job = flow.pollFirst();
    size--;
    double cost = flow.cost.costMillis(Double.NaN);
    floor = Math.max(floor, flow.clock);
    flow.clock += cost;
    job.pulledLevel = 0;
    job.chargedMillis = cost;
    pulls++;
    chargedMillis += cost;
    if (flow.isEmpty()) {
      heapRemove(flow);
    } else {
      siftDown(0);
    }
    return job;
  }

  @Override
  public void requeueFront(QueuedJob job) {
    if (job.deque != null || job.pulledLevel != 0) {
      throw new IllegalStateException("only a job just polled can be put back: " + job);
    }
    Flow flow = flows.get(job.flow());
    flow.clock -= job.chargedMillis;
    pulls--;
    chargedMillis -= job.chargedMillis;
    job.chargedMillis = 0;
    if (flow.heapIndex >= 0) {
      siftUp(flow.heapIndex);
    }
    add(flow, job, true);
  }

  @Override
  public void retry(QueuedJob job) {
    if (job.deque != null) {
      throw new IllegalStateException("job is already queued: " + job);
    }
    job.enqueueNanos = ticker.nanos();
    add(flows.computeIfAbsent(job.flow(), Flow::new), job, false);
  }

  @Override
  public boolean remove(QueuedJob job) {
    if (!(job.deque instanceof Flow flow)) {
      return false;
    }
    flow.unlink(job);
    size--;
    if (flow.isEmpty()) {
      heapRemove(flow);
    }
    return true;
  }

  @Override
  public int age() {
    return 0;
  }

  @Override
  public void completed(QueuedJob job, double durationNanos) {
    Flow flow = flows.get(job.flow());
    if (flow == null || !(durationNanos >= 0) || Double.isInfinite(durationNanos)) {
      return;
    }
    flow.cost.add(durationNanos);
    double actualMillis = Math.max(durationNanos / 1e6, CostAverage.MIN_COST_MILLIS);
    double correction = actualMillis - job.chargedMillis;
    job.chargedMillis = actualMillis;
    chargedMillis += correction;
    flow.clock += correction;
    if (flow.heapIndex >= 0) {
      siftUp(flow.heapIndex);
      siftDown(flow.heapIndex);
    }
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public int size(int level) {
    checkLevel(level);
    return size;
  }

  @Override
  public int promoted(int level) {
    checkLevel(level);
    return 0;
  }

  /**
   * Returns the number of jobs waiting in one flow.
   *
   * @param flow the job type
   * @return the count, 0 for an unknown flow
   */
  public int flowSize(String flow) {
    Flow f = flows.get(flow);
    return f == null ? 0 : f.size();
  }

  @Override
  public SchedulerStats stats() {
    double average = Double.NaN;
    return new SchedulerStats(
        List.of(pulls), List.of(chargedMillis), List.of(average), List.of(size), List.of(0));
  }

  private static void checkLevel(int level) {
    if (level != 0) {
      throw new IllegalArgumentException("a fair scheduler has only level 0: " + level);
    }
  }

  private boolean less(Flow a, Flow b) {
    return a.clock < b.clock || (a.clock == b.clock && a.sequence < b.sequence);
  }

  private void heapInsert(Flow flow) {
    if (heapSize == heap.length) {
      heap = Arrays.copyOf(heap, heapSize * 2);
    }
    heap[heapSize] = flow;
    flow.heapIndex = heapSize;
    heapSize++;
    siftUp(heapSize - 1);
  }

  private void heapRemove(Flow flow) {
    int i = flow.heapIndex;
    assert i >= 0 && heap[i] == flow : "flow not in heap: " + flow.name;
    heapSize--;
    Flow last = heap[heapSize];
    heap[heapSize] = null;
    flow.heapIndex = -1;
    if (i < heapSize) {
      heap[i] = last;
      last.heapIndex = i;
      siftUp(i);
      siftDown(last.heapIndex);
    }
  }

  private void siftUp(int index) {
    int i = index;
    Flow flow = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!less(flow, heap[parent])) {
        break;
      }
      heap[i] = heap[parent];
      heap[i].heapIndex = i;
      i = parent;
    }
    heap[i] = flow;
    flow.heapIndex = i;
  }

  private void siftDown(int index) {
    int i = index;
    Flow flow = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= heapSize) {
        break;
      }
      if (child + 1 < heapSize && less(heap[child + 1], heap[child])) {
        child++;
      }
      if (!less(heap[child], flow)) {
        break;
      }
      heap[i] = heap[child];
      heap[i].heapIndex = i;
      i = child;
    }
    heap[i] = flow;
    flow.heapIndex = i;
  }
}
