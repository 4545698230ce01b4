package io.harbinger.scheduler;

/**
 * An intrusive FIFO of jobs: the links live in {@link QueuedJob}, so adding and unlinking allocate
 * nothing and unlinking any job is O(1).
 */
class JobDeque {

  private QueuedJob head;
  private QueuedJob tail;
  private int size;

  final boolean isEmpty() {
    return size == 0;
  }

  final int size() {
    return size;
  }

  final QueuedJob peekFirst() {
    return head;
  }

  final void addLast(QueuedJob job) {
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

  final void addFirst(QueuedJob job) {
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

  final QueuedJob pollFirst() {
    QueuedJob job = head;
    if (job != null) {
      unlink(job);
    }
    return job;
  }

  final void unlink(QueuedJob job) {
    assert job.deque == this : "job not in this queue: " + job;
    QueuedJob p = job.prev;
    QueuedJob n = job.next;
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
