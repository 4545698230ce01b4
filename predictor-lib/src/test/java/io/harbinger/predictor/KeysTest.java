package io.harbinger.predictor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KeysTest {

  @Test
  void sizeAggregate_isOnePerBinAndEqualsNoKeyOrProducerAggregate() {
    assertThat(Keys.sizeAggregate(3000)).isEqualTo(Keys.sizeAggregate(2048));
    assertThat(Keys.sizeAggregate(3000)).isNotEqualTo(Keys.sizeAggregate(4096));
    assertThat(Keys.sizeAggregate(0)).isEqualTo(Keys.sizeAggregate(1));
    assertThat(Keys.isAggregate(Keys.sizeAggregate(3000))).isTrue();
    assertThat(Keys.producerAggregate(Keys.sizeAggregate(3000))).isNull();
    assertThat(Keys.sizeAggregate(3000)).doesNotStartWith(Keys.of("s11", null));
    assertThat(Keys.isAggregate(Keys.of("shop", "s11"))).isFalse();
    assertThatThrownBy(() -> Keys.sizeAggregate(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  @Test
  void of_producerAndLabel_joinsWithUnitSeparator() {
    assertThat(Keys.of("shop", "send_email")).isEqualTo("shop\u001Fsend_email");
  }

  @Test
  void of_missingOrEmptyLabel_isProducerAlone() {
    assertThat(Keys.of("shop", null)).isEqualTo("shop");
    assertThat(Keys.of("shop", "")).isEqualTo("shop");
  }

  @Test
  void of_labelWithControlCharacters_isIgnored() {
    assertThat(Keys.of("shop", "a\u001Fb")).isEqualTo("shop");
    assertThat(Keys.of("shop", "a\nb")).isEqualTo("shop");
    assertThat(Keys.of("shop", "a\u007Fb")).isEqualTo("shop");
  }

  @Test
  void of_labelOverMaxBytes_isIgnored() {
    assertThat(Keys.of("shop", "x".repeat(128))).isEqualTo("shop\u001F" + "x".repeat(128));
    assertThat(Keys.of("shop", "x".repeat(129))).isEqualTo("shop");
    // 43 three-byte characters are 129 bytes although only 43 chars.
    assertThat(Keys.of("shop", "€".repeat(43))).isEqualTo("shop");
  }

  @Test
  void of_noProducer_givesNoKey() {
    assertThat(Keys.of(null, "job")).isEqualTo(Keys.NO_KEY);
    assertThat(Keys.of("", "job")).isEqualTo(Keys.NO_KEY);
    assertThat(Keys.of("evil\u001Fother", "job")).isEqualTo(Keys.NO_KEY);
    assertThat(Keys.isValid(Keys.NO_KEY)).isFalse();
  }

  @Test
  void isValid_checksUtf8LengthNotCharCount() {
    assertThat(Keys.isValid("a".repeat(256))).isTrue();
    assertThat(Keys.isValid("a".repeat(257))).isFalse();
    assertThat(Keys.isValid("€".repeat(85))).isTrue();
    assertThat(Keys.isValid("€".repeat(86))).isFalse();
    assertThat(Keys.isValid(null)).isFalse();
  }

  @Test
  void utf8Length_matchesTheEncoder() {
    String s = "aé€😀\uD800";
    assertThat(Keys.utf8Length(s))
        .isEqualTo(s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
  }

  @Test
  void sizeBin_isFloorLog2CappedAt63() {
    assertThat(Keys.sizeBin(0)).isZero();
    assertThat(Keys.sizeBin(1)).isZero();
    assertThat(Keys.sizeBin(3000)).isEqualTo(11);
    assertThat(Keys.sizeBin(Long.MAX_VALUE)).isEqualTo(62);
    assertThat(Keys.withSizeBin("shop\u001Fjob", 3000)).isEqualTo("shop\u001Fjob\u001Fs11");
    assertThatThrownBy(() -> Keys.sizeBin(-1)).hasMessageContaining("-1");
  }

  @Test
  void withSizeBin_tooLong_isNull() {
    assertThat(Keys.withSizeBin("a".repeat(253), 5)).hasSize(256);
    assertThat(Keys.withSizeBin("a".repeat(254), 5)).isNull();
  }
}
