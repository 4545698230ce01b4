package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.impl.LongStringHelper;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The size hint a message's headers give, and the body length where they give none or garbage. */
class SizeHintsTest {

  private final AdapterStats stats = new AdapterStats();

  private static Map<String, Object> header(Object value) {
    Map<String, Object> headers = new HashMap<>();
    headers.put(ChannelOptions.SIZE_HINT_HEADER, value);
    return headers;
  }

  static Object[][] readable() {
    return new Object[][] {
      {1200, 1200L},
      {1200L, 1200L},
      {(short) 7, 7L},
      {(byte) 0, 0L},
      {"1200", 1200L},
      {LongStringHelper.asLongString("42"), 42L},
      {"999999999999999999", 999_999_999_999_999_999L},
    };
  }

  @ParameterizedTest
  @MethodSource("readable")
  void of_aNonNegativeInteger_isTheSizeHint(Object value, long expected) {
    assertThat(SizeHints.of(header(value), 77, stats)).isEqualTo(expected);
    assertThat(stats.invalidSizeHints()).isZero();
  }

  static Object[] garbage() {
    return new Object[] {
      -3,
      -1L,
      "-3",
      "lots",
      "",
      " 12",
      "12 ",
      "1e3",
      "0x10",
      "1234567890123456789",
      2.5,
      2.5f,
      true,
      new byte[] {1},
      LongStringHelper.asLongString("12a"),
      Map.of("size", 3)
    };
  }

  @ParameterizedTest
  @MethodSource("garbage")
  void of_garbage_isTheBodyLengthAndCounted(Object value) {
    assertThat(SizeHints.of(header(value), 77, stats)).isEqualTo(77);
    assertThat(stats.invalidSizeHints()).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("readable")
  void of_noHeader_isTheBodyLengthAndNotCounted(Object ignored, long alsoIgnored) {
    assertThat(SizeHints.of(null, 77, stats)).isEqualTo(77);
    assertThat(SizeHints.of(Map.of("x-job-type", "email"), 78, stats)).isEqualTo(78);
    assertThat(stats.invalidSizeHints()).isZero();
  }
}
