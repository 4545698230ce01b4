package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The headers a stamped publish sends: the caller's plus the one stamp. */
class StampingPublisherHeadersTest {

  @Test
  void copy_containsCallerHeadersPlusTheOneStamp_andTheStampReplacesTheCallerValue() {
    Map<String, Object> caller = new HashMap<>();
    caller.put("x-job-type", "email");
    caller.put(HarbingerHeaders.STAMP, "forged");
    StampingPublisher.HeadersWithStamp view =
        new StampingPublisher.HeadersWithStamp(
            caller, new Stamp(0, 2, "shop", 42L, "predictive").headerValue());

    Map<String, Object> copy = new HashMap<>(view);

    assertThat(copy)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("x-job-type", "email", HarbingerHeaders.STAMP, "v1;l=0;m=p;t=42"));
    assertThat(view.size()).isEqualTo(2);
    assertThat(view.get(HarbingerHeaders.STAMP)).isEqualTo("v1;l=0;m=p;t=42");
    assertThat(caller).containsEntry(HarbingerHeaders.STAMP, "forged").hasSize(2);
  }

  @Test
  void copy_keepsTheFirstVersionsHeadersOfTheCaller_andAddsNoneOfThem() {
    Map<String, Object> caller = Map.of(HarbingerHeaders.LEVEL, 9);
    StampingPublisher.HeadersWithStamp view =
        new StampingPublisher.HeadersWithStamp(
            caller, new Stamp(1, 1, "shop", 7L, "off").headerValue());

    assertThat(new HashMap<>(view))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(HarbingerHeaders.LEVEL, 9, HarbingerHeaders.STAMP, "v1;l=1;m=o;t=7"));
  }

  @Test
  void noCallerHeaders_givesTheStampAlone() {
    StampingPublisher.HeadersWithStamp view =
        new StampingPublisher.HeadersWithStamp(
            null, new Stamp(2, null, "shop", 1L, "shadow").headerValue());

    assertThat(new HashMap<>(view))
        .containsExactlyEntriesOf(Map.of(HarbingerHeaders.STAMP, "v1;l=2;m=s;t=1"));
    assertThat(view.containsKey("x-job-type")).isFalse();
  }
}
