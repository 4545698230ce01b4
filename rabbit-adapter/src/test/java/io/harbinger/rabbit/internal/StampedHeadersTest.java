package io.harbinger.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.rabbit.HarbingerHeaders;
import io.harbinger.rabbit.Stamp;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StampedHeadersTest {

  @Test
  void copy_containsCallerHeadersPlusStamps_andStampsReplaceCallerValues() {
    Map<String, Object> caller = new HashMap<>();
    caller.put("x-job-type", "email");
    caller.put(HarbingerHeaders.LEVEL, 9);
    StampedHeaders view = new StampedHeaders(caller, new Stamp(0, 2, "shop", 42L, "predictive"));

    Map<String, Object> copy = new HashMap<>(view);

    assertThat(copy)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "x-job-type",
                "email",
                HarbingerHeaders.PUBLISHED_AT,
                42L,
                HarbingerHeaders.LEVEL,
                0,
                HarbingerHeaders.MODE,
                "predictive"));
    assertThat(view.size()).isEqualTo(4);
    assertThat(view.get(HarbingerHeaders.LEVEL)).isEqualTo(0);
    assertThat(caller).containsEntry(HarbingerHeaders.LEVEL, 9).hasSize(2);
  }

  @Test
  void noCallerHeaders_givesTheThreeStamps() {
    StampedHeaders view = new StampedHeaders(null, new Stamp(2, null, "shop", 1L, "shadow"));

    assertThat(new HashMap<>(view)).hasSize(3).containsEntry(HarbingerHeaders.MODE, "shadow");
    assertThat(view.containsKey("x-job-type")).isFalse();
  }
}
