package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LaneFetchTest {

  @Test
  void byQueueType_pullsClassicLanes_andPushesQuorumLanesAndExclusiveConsumers() {
    assertThat(LaneFetch.BY_QUEUE_TYPE.on(QueueType.CLASSIC, false)).isEqualTo(LaneFetch.PULL);
    assertThat(LaneFetch.BY_QUEUE_TYPE.on(QueueType.QUORUM, false)).isEqualTo(LaneFetch.PUSH);
    assertThat(LaneFetch.BY_QUEUE_TYPE.on(QueueType.CLASSIC, true)).isEqualTo(LaneFetch.PUSH);
  }

  @Test
  void aChosenFetch_isKeptOnEveryQueueType() {
    assertThat(LaneFetch.PUSH.on(QueueType.CLASSIC, false)).isEqualTo(LaneFetch.PUSH);
    assertThat(LaneFetch.PULL.on(QueueType.QUORUM, false)).isEqualTo(LaneFetch.PULL);
    assertThat(LaneFetch.PULL.on(QueueType.CLASSIC, true)).isEqualTo(LaneFetch.PULL);
  }

  @Test
  void defaults_chooseByQueueType() {
    assertThat(LaneOptions.defaults().fetch()).isEqualTo(LaneFetch.BY_QUEUE_TYPE);
  }
}
