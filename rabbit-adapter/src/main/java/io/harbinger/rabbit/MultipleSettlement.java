package io.harbinger.rabbit;

import java.util.List;
import java.util.NavigableSet;

/**
 * How a multiple acknowledgement or nack on a channel with lanes consumers is sent so that it
 * settles the deliveries the application was handed and none a lanes consumer still holds: one
 * multiple settlement of the highest handed tag below the lowest tag to leave alone, which RabbitMQ
 * applies to every unsettled tag up to it, then one single settlement per handed tag above.
 *
 * <p>Implementation notes. A multiple settlement cannot skip a tag, so any that reaches above the
 * lowest tag to leave alone would settle it; the handed tags above it go one by one. The client
 * dispatches a channel's deliveries in tag order, so a delivery of the channel below a handed tag
 * that no lanes consumer received was handed to its own consumer before it.
 *
 * @param multipleTag the tag of the multiple settlement, 0 for none
 * @param singleTags the tags settled one by one, ascending
 */
record MultipleSettlement(long multipleTag, List<Long> singleTags) {

  /**
   * Plans the settlements.
   *
   * @param handed the tags the application was handed and has not settled, up to the settlement's
   *     tag
   * @param leaveAlone the lowest tag not to settle: one a lanes consumer has not handed over, 0 to
   *     settle the handed tags one by one
   * @return the plan
   */
  static MultipleSettlement plan(NavigableSet<Long> handed, long leaveAlone) {
    Long below = handed.lower(leaveAlone);
    return new MultipleSettlement(
        below == null ? 0 : below, List.copyOf(handed.tailSet(leaveAlone, true)));
  }

  /** Whether the plan settles nothing: the application was handed nothing up to the tag. */
  boolean isEmpty() {
    return multipleTag == 0 && singleTags.isEmpty();
  }
}
