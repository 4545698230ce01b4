package io.harbinger.rabbit;

/** The counters of an {@link AdapterStats}, for {@link AdapterStats#increment}. */
enum Counter {
  /** See {@link AdapterStats#published()}. */
  PUBLISHED,
  /** See {@link AdapterStats#routerFailures()}. */
  ROUTER_FAILURE,
  /** See {@link AdapterStats#routerAbsent()}. */
  ROUTER_ABSENT,
  /** See {@link AdapterStats#invalidLevels()}. */
  INVALID_LEVEL,
  /** See {@link AdapterStats#routerUnavailable()}. */
  ROUTER_UNAVAILABLE,
  /** See {@link AdapterStats#userIdReplaced()}. */
  USER_ID_REPLACED,
  /** See {@link AdapterStats#reports()}. */
  REPORT,
  /** See {@link AdapterStats#censored()}. */
  CENSORED,
  /** See {@link AdapterStats#unmatchedSettles()}. */
  UNMATCHED_SETTLE,
  /** See {@link AdapterStats#sinkFailures()}. */
  SINK_FAILURE,
  /** See {@link AdapterStats#prefetchWarnings()}. */
  PREFETCH_WARNING,
  /** See {@link AdapterStats#unreadableStamps()}. */
  UNREADABLE_STAMP,
  /** See {@link AdapterStats#invalidSizeHints()}. */
  INVALID_SIZE_HINT,
  /** See {@link AdapterStats#laneGets()}. */
  LANE_GET,
  /** See {@link AdapterStats#laneEmptyGets()}. */
  LANE_EMPTY_GET,
  /** See {@link AdapterStats#laneTakenAhead()}. */
  LANE_TAKEN_AHEAD
}
