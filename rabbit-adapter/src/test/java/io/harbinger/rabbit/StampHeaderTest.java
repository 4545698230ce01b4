package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.impl.LongStringHelper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StampHeaderTest {

  private static final long DEC_1_NOON_PLUS_1_MICRO = 1_796_126_400_000_001L;

  @Test
  void encode_theDocumentedExample() {
    assertThat(StampHeader.encode(DEC_1_NOON_PLUS_1_MICRO, 0, "predictive"))
        .isEqualTo("v1;l=0;m=p;t=1796126400000001")
        .hasSize(29);
    assertThat(StampHeader.encode(5, 9, "off")).isEqualTo("v1;l=9;m=o;t=5");
  }

  @Test
  void parse_readsBackEveryLevelAndMode_fromAStringOrALongString() {
    for (int level = 0; level < 10; level++) {
      for (String mode : new String[] {"predictive", "shadow", "off"}) {
        String value = StampHeader.encode(DEC_1_NOON_PLUS_1_MICRO, level, mode);
        StampHeader.Reading expected =
            new StampHeader.Reading(DEC_1_NOON_PLUS_1_MICRO, level, true);
        assertThat(StampHeader.parse(value, 10)).isEqualTo(expected);
        assertThat(StampHeader.parse(LongStringHelper.asLongString(value), 10)).isEqualTo(expected);
      }
    }
  }

  @Test
  void parse_fieldsInAnyOrder() {
    assertThat(StampHeader.parse("v1;t=77;m=s;l=2", 3))
        .isEqualTo(new StampHeader.Reading(77, 2, true));
  }

  @Test
  void parse_levelAtOrAboveTheConsumersLevels_keepsTheTimeAndIsNotUnderstood() {
    assertThat(StampHeader.parse("v1;l=5;m=p;t=77", 5))
        .isEqualTo(new StampHeader.Reading(77, -1, false));
  }

  @Test
  void parse_newerVersionOrUnknownField_isUnreadableAsAWhole() {
    assertThat(StampHeader.parse("v2;l=0;m=p;t=77", 3)).isEqualTo(StampHeader.Reading.UNREADABLE);
    assertThat(StampHeader.parse("v1;l=0;m=p;t=77;p=1", 3))
        .isEqualTo(StampHeader.Reading.UNREADABLE);
    assertThat(StampHeader.parse(null, 3)).isEqualTo(StampHeader.Reading.UNREADABLE);
  }

  @Test
  void read_prefersTheCompactHeader_overTheFirstVersionsThree() {
    Map<String, Object> both =
        Map.of(
            HarbingerHeaders.STAMP,
            "v1;l=1;m=p;t=500",
            HarbingerHeaders.PUBLISHED_AT,
            400L,
            HarbingerHeaders.LEVEL,
            2);

    assertThat(StampHeader.read(both, 3)).isEqualTo(new StampHeader.Reading(500, 1, true));
  }

  @Test
  void read_firstVersionHeaders_asTheBrokerDeliversThem() {
    Map<String, Object> old =
        Map.of(
            HarbingerHeaders.PUBLISHED_AT,
            400L,
            HarbingerHeaders.LEVEL,
            2,
            HarbingerHeaders.MODE,
            LongStringHelper.asLongString("shadow"));

    assertThat(StampHeader.read(old, 3)).isEqualTo(new StampHeader.Reading(400, 2, true));
    assertThat(StampHeader.read(Map.of(HarbingerHeaders.LEVEL, 2), 3))
        .isEqualTo(new StampHeader.Reading(-1, 2, true));
    assertThat(StampHeader.read(Map.of(HarbingerHeaders.PUBLISHED_AT, "soon"), 3))
        .isEqualTo(StampHeader.Reading.UNREADABLE);
    assertThat(StampHeader.read(Map.of("x-job-type", "a"), 3))
        .isEqualTo(StampHeader.Reading.ABSENT);
    assertThat(StampHeader.read(null, 3)).isEqualTo(StampHeader.Reading.ABSENT);
  }

  @Test
  void encode_badValues_areRefusedWithTheRule() {
    assertThatThrownBy(() -> StampHeader.encode(1, 10, "off"))
        .hasMessage("level must be in [0, 10): 10");
    assertThatThrownBy(() -> StampHeader.encode(0, 1, "off"))
        .hasMessage("publishedAtMicros must be positive epoch microseconds: 0");
    assertThatThrownBy(() -> StampHeader.encode(1, 1, null))
        .hasMessage("mode must be predictive, shadow or off: null");
  }
}
