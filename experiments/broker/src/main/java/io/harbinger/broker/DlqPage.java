package io.harbinger.broker;

import java.util.List;

/**
 * A page of the dead-letter queue.
 *
 * @param entries the entries, oldest first
 * @param totalSize how many entries the queue holds
 */
public record DlqPage(List<DeadLetter> entries, long totalSize) {

  /** Copies the list. */
  public DlqPage {
    entries = List.copyOf(entries);
  }
}
