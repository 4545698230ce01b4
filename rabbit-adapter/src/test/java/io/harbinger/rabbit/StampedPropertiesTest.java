package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.impl.ContentHeaderPropertyWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The properties a wrapped channel sends: on the wire exactly what plain properties with the same
 * values give, whatever reads them sees the stamp, the caller's are never changed, and a copy
 * survives a refill.
 */
class StampedPropertiesTest {

  private static final long AT = 1_796_126_400_000_001L;

  static Stream<AMQP.BasicProperties> callers() {
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put("x-job-type", "send_email");
    headers.put("trace-id", "4bf92f3577b34da6");
    headers.put("attempt", 3);
    Map<String, Object> withOldStamp = new HashMap<>(headers);
    withOldStamp.put(HarbingerHeaders.STAMP, "v1;l=2;m=p;t=5");
    return Stream.of(
        null,
        new AMQP.BasicProperties(),
        new AMQP.BasicProperties.Builder().headers(headers).deliveryMode(2).build(),
        new AMQP.BasicProperties.Builder()
            .contentType("application/json")
            .contentEncoding("gzip")
            .headers(headers)
            .deliveryMode(2)
            .priority(7)
            .correlationId("c-1")
            .replyTo("replies")
            .expiration("60000")
            .messageId("m-1")
            .timestamp(new Date(1_796_126_400_000L))
            .type("job")
            .userId("mallory")
            .appId("shop-app")
            .clusterId("c")
            .build(),
        new AMQP.BasicProperties.Builder().headers(withOldStamp).build());
  }

  @ParameterizedTest
  @MethodSource("callers")
  void onTheWire_exactlyWhatPlainPropertiesWithTheSameValuesGive(AMQP.BasicProperties caller)
      throws IOException {
    StampedProperties stamped = new StampedProperties();
    stamped.caller(caller);
    stamped.fill(caller, 1, 5, "shop", null, AT, "predictive");

    Map<String, Object> expectedHeaders = new HashMap<>();
    if (caller != null && caller.getHeaders() != null) {
      expectedHeaders.putAll(caller.getHeaders());
    }
    expectedHeaders.put(
        HarbingerHeaders.STAMP,
        StampHeader.encode(AT, 1, "predictive").getBytes(StandardCharsets.US_ASCII));
    AMQP.BasicProperties.Builder plain =
        caller == null ? new AMQP.BasicProperties.Builder() : caller.builder();
    AMQP.BasicProperties expected =
        plain
            .headers(expectedHeaders)
            .priority(5)
            .userId("shop")
            .appId(caller == null ? null : caller.getAppId())
            .build();

    // A table is a set: compare what each decodes to, and the lengths.
    assertThat(bytes(stamped)).hasSameSizeAs(bytes(expected));
    assertThat(decoded(stamped)).isEqualTo(decoded(expected));
    assertThat(decoded(stamped.snapshot())).isEqualTo(decoded(expected));
  }

  @Test
  void getters_readTheCallersValues_andTheStamp_andTheCallersAreUntouched() {
    AMQP.BasicProperties caller = callers().toList().get(3);
    Map<String, Object> before = new HashMap<>(caller.getHeaders());
    StampedProperties stamped = new StampedProperties();
    stamped.caller(caller);
    stamped.fill(caller, 0, 9, "shop", "shop-identity", AT, "shadow");

    assertThat(stamped.getContentType()).isEqualTo("application/json");
    assertThat(stamped.getMessageId()).isEqualTo("m-1");
    assertThat(stamped.getPriority()).isEqualTo(9);
    assertThat(stamped.getUserId()).isEqualTo("shop");
    assertThat(stamped.getAppId()).isEqualTo("shop-identity");
    assertThat(stamped.level()).isZero();
    assertThat(stamped.shadow()).isTrue();
    Map<String, Object> headers = stamped.getHeaders();
    assertThat(headers).hasSize(4).containsEntry("x-job-type", "send_email");
    assertThat(StampHeader.text(headers.get(HarbingerHeaders.STAMP)))
        .isEqualTo(StampHeader.encode(AT, 0, "shadow"));
    assertThat(new HashMap<>(headers)).hasSize(4).containsKeys("trace-id", "attempt");
    assertThat(caller.getHeaders()).isEqualTo(before).doesNotContainKey(HarbingerHeaders.STAMP);
    assertThat(caller.getPriority()).isEqualTo(7);
    assertThat(caller.getUserId()).isEqualTo("mallory");
  }

  @Test
  void aCallersOwnStampHeader_isReplaced_notRepeated() {
    AMQP.BasicProperties caller = callers().toList().get(4);
    StampedProperties stamped = new StampedProperties();
    stamped.caller(caller);
    stamped.fill(caller, 2, null, "shop", null, AT, "predictive");
    assertThat(stamped.getHeaders()).hasSize(4);
    assertThat(stamped.getHeaders().entrySet().stream().map(Map.Entry::getKey))
        .containsOnlyOnce(HarbingerHeaders.STAMP);
    assertThat(StampHeader.read(stamped.getHeaders(), 3).level()).isEqualTo(2);
  }

  @Test
  void aRefill_reusesTheStampArray_andWhatWasCopiedBeforeKeepsItsValues() {
    StampedProperties stamped = new StampedProperties();
    stamped.caller(null);
    stamped.fill(null, 0, 2, "shop", null, AT, "predictive");
    Object firstArray = stamped.getHeaders().get(HarbingerHeaders.STAMP);
    AMQP.BasicProperties copy = stamped.builder().build();
    AMQP.BasicProperties snapshot = stamped.snapshot();

    stamped.fill(null, 2, 0, "shop", null, AT + 7, "predictive");

    assertThat(stamped.getHeaders().get(HarbingerHeaders.STAMP)).isSameAs(firstArray);
    assertThat(StampHeader.read(stamped.getHeaders(), 3).level()).isEqualTo(2);
    for (AMQP.BasicProperties kept : new AMQP.BasicProperties[] {copy, snapshot}) {
      assertThat(kept.getPriority()).isEqualTo(2);
      StampHeader.Reading r = StampHeader.read(kept.getHeaders(), 3);
      assertThat(r.level()).isZero();
      assertThat(r.publishedAtMicros()).isEqualTo(AT);
    }
  }

  @Test
  void theStampAsBytes_readsBackAsTheStringDoes_andAnOverlongOneIsUnreadable() {
    byte[] value = StampHeader.encodeInto(AT, 1, "off", null);
    assertThat(new String(value, StandardCharsets.US_ASCII))
        .isEqualTo(StampHeader.encode(AT, 1, "off"));
    assertThat(StampHeader.parse(value, 3))
        .isEqualTo(StampHeader.parse(StampHeader.encode(AT, 1, "off"), 3));
    assertThat(StampHeader.encodeInto(AT + 1, 1, "off", value)).isSameAs(value);
    assertThat(StampHeader.encodeInto(9, 1, "off", value)).isNotSameAs(value);
    assertThat(StampHeader.parse(new byte[StampHeader.MAX_LENGTH + 1], 3))
        .isEqualTo(StampHeader.Reading.UNREADABLE);
    assertThat(StampHeader.parse("v1;l=1;m=o;t=12".getBytes(StandardCharsets.US_ASCII), 3).level())
        .isEqualTo(1);
  }

  /** What RabbitMQ would read: every property, header values as text where they are text. */
  private static Map<String, Object> decoded(AMQP.BasicProperties props) throws IOException {
    // A content header as the client reads it: weight and body size, then the properties.
    ByteArrayOutputStream header = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(header);
    out.writeShort(0);
    out.writeLong(0);
    out.write(bytes(props));
    AMQP.BasicProperties read =
        new AMQP.BasicProperties(
            new DataInputStream(new ByteArrayInputStream(header.toByteArray())));
    Map<String, Object> all = new HashMap<>();
    all.put("contentType", read.getContentType());
    all.put("contentEncoding", read.getContentEncoding());
    all.put("deliveryMode", read.getDeliveryMode());
    all.put("priority", read.getPriority());
    all.put("correlationId", read.getCorrelationId());
    all.put("replyTo", read.getReplyTo());
    all.put("expiration", read.getExpiration());
    all.put("messageId", read.getMessageId());
    all.put("timestamp", read.getTimestamp());
    all.put("type", read.getType());
    all.put("userId", read.getUserId());
    all.put("appId", read.getAppId());
    all.put("clusterId", read.getClusterId());
    Map<String, Object> headers = new HashMap<>();
    if (read.getHeaders() != null) {
      read.getHeaders()
          .forEach(
              (k, v) ->
                  headers.put(
                      k,
                      v instanceof byte[] b
                          ? "bytes:" + new String(b, StandardCharsets.US_ASCII)
                          : v instanceof LongString ls ? ls.toString() : v));
    }
    all.put("headers", headers);
    return all;
  }

  private static byte[] bytes(AMQP.BasicProperties props) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    props.writePropertiesTo(new ContentHeaderPropertyWriter(new DataOutputStream(out)));
    return out.toByteArray();
  }
}
