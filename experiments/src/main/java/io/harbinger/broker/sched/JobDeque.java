package io.harbinger.broker.sched;

/**
 * An intrusive FIFO of jobs: the links live in {@link Job}, so adding and unlinking allocate
 * nothing and unlinking any job is O(1).
 */
class JobDeque {

  private Job head;
  private Job tail;
  private int size;

  final boolean isEmpty() {
    return size == 0;
  }

  final int size() {
    return size;
  }

  final Job peekFirst() {
    return head;
  }

  final void addLast(Job job) {
    assert job.deque == null : "job already queued: " + job;
    job.deque = this;
    job.prev = tail;
    job.next = null;
    if (tail == null) {
      head = job;
    } else {
      tail.next = job;
    }
    tail = job;
    size++;
  }

  final void addFirst(Job job) {
    assert job.deque == null : "job already queued: " + job;
    job.deque = this;
    job.next = head;
    job.prev = null;
    if (head == null) {
      tail = job;
    } else {
      head.prev = job;
    }
    head = job;
    size++;
  }

  final Job pollFirst() {
    Job job = head;
    if (job != null) {
      unlink(job);
    }
    return job;
  }

  final void unlink(Job job) {
    assert job.deque == this : "job not in this queue: " + job;
    Job p = job.prev;
    Job n = job.next;
    if (p == null) {
      head = n;
    } else {
      p.next = n;
    }
    if (n == null) {
      tail = p;
    } else {
      n.prev = p;
    }
    job.prev = null;
    job.next = null;
    job.deque = null;
    size--;
  }
}
