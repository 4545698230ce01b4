package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.impl.LongStringHelper;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class PublishTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.ofEpochSecond(1_700_000_000L, 123_456_789), ZoneOffset.UTC);
  private static final long NOW_MICROS = 1_700_000_000_123_456L;

  private final Channel delegate = mock(Channel.class);
  private final List<String> routedKeys = new ArrayList<>();
  private final List<Long> routedSizes = new ArrayList<>();

  /** A 3-level router: "fast" jobs at level 0, "slow" at 2, the rest untrusted at 1. */
  private Router router(Mode mode) {
    return new Router() {
      @Override
      public Prediction route(String key) {
        return route(key, -1);
      }

      @Override
      public Prediction route(String key, long sizeHint) {
        routedKeys.add(key);
        routedSizes.add(sizeHint);
        int predicted = key.endsWith("fast") ? 0 : key.endsWith("slow") ? 2 : 1;
        Outcome outcome = predicted == 1 ? Outcome.COLD : Outcome.PREDICTED;
        int level = mode == Mode.PREDICTIVE ? predicted : 1;
        return new Prediction(level, predicted, outcome, 1e6, mode);
      }

      @Override
      public int levels() {
        return 3;
      }
    };
  }

  private Channel wrap(ChannelOptions.Builder options) {
    return PredictiveChannels.wrap(delegate, options.clock(CLOCK).build());
  }

  private static AMQP.BasicProperties withJobType(String jobType) {
    Map<String, Object> headers = new HashMap<>();
    headers.put("x-job-type", jobType);
    return new AMQP.BasicProperties.Builder().headers(headers).contentType("text/plain").build();
  }

  private static AMQP.BasicProperties withSize(String jobType, Object sizeHint) {
    Map<String, Object> headers = new HashMap<>();
    headers.put("x-job-type", jobType);
    headers.put(ChannelOptions.SIZE_HINT_HEADER, sizeHint);
    return new AMQP.BasicProperties.Builder().headers(headers).build();
  }

  private AMQP.BasicProperties sentProps() throws Exception {
    ArgumentCaptor<AMQP.BasicProperties> props =
        ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate)
        .basicPublish(eq("ex"), eq("rk"), eq(false), eq(false), props.capture(), any(byte[].class));
    return props.getValue();
  }

  @Test
  void publish_trustedShortKey_setsTopPriorityHeadersAndUserId() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));

    channel.basicPublish("ex", "rk", withJobType("fast"), new byte[] {1});

    AMQP.BasicProperties sent = sentProps();
    assertThat(sent.getPriority()).isEqualTo(2);
    assertThat(sent.getUserId()).isEqualTo("shop");
    assertThat(sent.getContentType()).isEqualTo("text/plain");
    assertThat(textual(sent.getHeaders()))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("x-job-type", "fast", HarbingerHeaders.STAMP, "v1;l=0;m=p;t=1700000000123456"));
    assertThat(routedKeys).containsExactly(Keys.of("shop", "fast"));
  }

  @Test
  void publish_levels_mapToPriorityLevelsMinusOneMinusLevel() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));

    channel.basicPublish("ex", "rk", withJobType("slow"), new byte[0]);
    channel.basicPublish("ex", "rk", withJobType("other"), new byte[0]);
    channel.basicPublish("ex", "rk", withJobType("fast"), new byte[0]);

    ArgumentCaptor<AMQP.BasicProperties> props =
        ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate, org.mockito.Mockito.times(3))
        .basicPublish(eq("ex"), eq("rk"), eq(false), eq(false), props.capture(), any(byte[].class));
    assertThat(props.getAllValues())
        .extracting(AMQP.BasicProperties::getPriority)
        .containsExactly(0, 1, 2);
  }

  /** Publishes slow, other and fast to a queue on the default exchange; returns the priorities. */
  private List<Integer> prioritiesOnDefaultExchange(String queue, Mode mode) throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(mode)));
    for (String type : List.of("slow", "other", "fast")) {
      channel.basicPublish("", queue, withJobType(type), new byte[0]);
    }
    ArgumentCaptor<AMQP.BasicProperties> props =
        ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate, org.mockito.Mockito.times(3))
        .basicPublish(eq(""), eq(queue), eq(false), eq(false), props.capture(), any(byte[].class));
    return props.getAllValues().stream().map(AMQP.BasicProperties::getPriority).toList();
  }

  private void onBroker(String version) {
    com.rabbitmq.client.Connection connection = mock(com.rabbitmq.client.Connection.class);
    org.mockito.Mockito.when(connection.getServerProperties())
        .thenReturn(Map.of("version", LongStringHelper.asLongString(version)));
    org.mockito.Mockito.when(delegate.getConnection()).thenReturn(connection);
  }

  private static String quorumQueue() {
    String queue = "jobs-" + System.nanoTime();
    DeclaredQueues.SHARED.declared(queue, Map.of("x-queue-type", "quorum"));
    return queue;
  }

  @Test
  void publish_quorumQueueOn40_levelZeroHighOthersExplicitNormal() throws Exception {
    onBroker("4.0.5");
    assertThat(prioritiesOnDefaultExchange(quorumQueue(), Mode.PREDICTIVE))
        .containsExactly(4, 4, 5);
  }

  @Test
  void publish_quorumQueueOn43_strictLevelsFromFourUp() throws Exception {
    onBroker("4.3.0");
    assertThat(prioritiesOnDefaultExchange(quorumQueue(), Mode.PREDICTIVE))
        .containsExactly(4, 5, 6);
  }

  @Test
  void publish_queueDeclaredThroughTheWrapper_isMappedByItsType() throws Exception {
    onBroker("4.0.5");
    String queue = "jobs-" + System.nanoTime();
    org.mockito.Mockito.when(
            delegate.queueDeclare(
                eq(queue),
                org.mockito.ArgumentMatchers.anyBoolean(),
                org.mockito.ArgumentMatchers.anyBoolean(),
                org.mockito.ArgumentMatchers.anyBoolean(),
                org.mockito.ArgumentMatchers.any()))
        .thenReturn(new AMQP.Queue.DeclareOk.Builder().queue(queue).build());
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));
    channel.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));

    channel.basicPublish("", queue, withJobType("fast"), new byte[0]);

    ArgumentCaptor<AMQP.BasicProperties> props =
        ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate)
        .basicPublish(eq(""), eq(queue), eq(false), eq(false), props.capture(), any(byte[].class));
    assertThat(props.getValue().getPriority()).isEqualTo(5);
  }

  @Test
  void publish_unknownQueueOrOtherExchange_keepsTheClassicMapping() throws Exception {
    onBroker("4.0.5");
    assertThat(prioritiesOnDefaultExchange("never-declared-" + System.nanoTime(), Mode.PREDICTIVE))
        .containsExactly(0, 1, 2);
  }

  @Test
  void publish_quorumQueueOn3x_leavesTheCallersPriorityAlone() throws Exception {
    onBroker("3.10.8");
    String queue = quorumQueue();
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));
    AMQP.BasicProperties mine = withJobType("fast").builder().priority(7).build();

    channel.basicPublish("", queue, mine, new byte[0]);

    ArgumentCaptor<AMQP.BasicProperties> props =
        ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate)
        .basicPublish(eq(""), eq(queue), eq(false), eq(false), props.capture(), any(byte[].class));
    assertThat(props.getValue().getPriority()).isEqualTo(7);
    assertThat(stampOf(props.getValue()).level()).isZero();
  }

  @Test
  void publish_everyOverload_isStampedAndKeepsItsFlags() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));

    channel.basicPublish("ex", "rk", withJobType("fast"), new byte[0]);
    channel.basicPublish("ex", "rk", true, withJobType("fast"), new byte[0]);
    channel.basicPublish("ex", "rk", true, false, withJobType("fast"), new byte[0]);

    ArgumentCaptor<AMQP.BasicProperties> p = ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate)
        .basicPublish(eq("ex"), eq("rk"), eq(false), eq(false), p.capture(), any(byte[].class));
    verify(delegate, times(2))
        .basicPublish(eq("ex"), eq("rk"), eq(true), eq(false), p.capture(), any(byte[].class));
    assertThat(p.getAllValues())
        .hasSize(3)
        .allSatisfy(props -> assertThat(props.getPriority()).isEqualTo(2));
    assertThat(PredictiveChannels.optionsOf(channel).stats().published()).isEqualTo(3);
  }

  /**
   * Clients that have a {@code ByteBuffer} publish (with a write listener) implement it as a
   * default method that copies the body and calls the {@code byte[]} overload, so the wrapper
   * stamps it without overriding it (and compiles against clients without it). Called by reflection
   * so that this test compiles against every supported client; skipped on one without.
   */
  @Test
  void publish_byteBufferOverloadOfNewerClients_isStampedAndItsListenerTold() throws Exception {
    Class<?> listenerType;
    try {
      listenerType = Class.forName("com.rabbitmq.client.WriteListener");
    } catch (ClassNotFoundException e) {
      Assumptions.abort("this amqp-client has no ByteBuffer publish");
      return;
    }
    Method publish =
        Channel.class.getMethod(
            "basicPublish",
            String.class,
            String.class,
            boolean.class,
            boolean.class,
            AMQP.BasicProperties.class,
            ByteBuffer.class,
            listenerType);
    List<Object[]> told = new ArrayList<>();
    Object listener =
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {listenerType},
            (proxy, method, args) -> {
              if (method.getName().equals("done")) {
                told.add(args);
              }
              return null;
            });
    Channel channel =
        wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)).sizeHints(true));

    publish.invoke(
        channel, "ex", "rk", false, true, withJobType("fast"), ByteBuffer.allocate(40), listener);

    ArgumentCaptor<AMQP.BasicProperties> p = ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    ArgumentCaptor<byte[]> body = ArgumentCaptor.forClass(byte[].class);
    verify(delegate)
        .basicPublish(eq("ex"), eq("rk"), eq(false), eq(true), p.capture(), body.capture());
    assertThat(p.getValue().getPriority()).isEqualTo(2);
    assertThat(body.getValue()).hasSize(40);
    assertThat(routedSizes).containsExactly(40L);
    assertThat(told).singleElement().satisfies(a -> assertThat(a[0]).isEqualTo(true));
  }

  @Test
  void publish_callerPropertiesAndHeaders_areNotModified() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));
    Map<String, Object> headers = new HashMap<>(Map.of("x-job-type", "fast", "trace", "t1"));
    AMQP.BasicProperties mine =
        new AMQP.BasicProperties.Builder().headers(headers).priority(9).build();

    channel.basicPublish("ex", "rk", mine, new byte[0]);

    assertThat(mine.getPriority()).isEqualTo(9);
    assertThat(mine.getUserId()).isNull();
    assertThat(headers).isEqualTo(Map.of("x-job-type", "fast", "trace", "t1"));
    assertThat(mine.getHeaders()).isEqualTo(headers);
    assertThat(sentProps().getHeaders()).containsEntry("trace", "t1").hasSize(3);
  }

  @Test
  void publish_nullProperties_stillStamped() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));

    channel.basicPublish("ex", "rk", null, new byte[0]);

    AMQP.BasicProperties sent = sentProps();
    assertThat(sent.getPriority()).isEqualTo(1);
    assertThat(sent.getUserId()).isEqualTo("shop");
    assertThat(routedKeys).containsExactly("shop");
  }

  @Test
  void publish_shadowOption_stampsPredictedLevelButLeavesPriorityAlone() throws Exception {
    Channel channel =
        wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)).shadow(true));
    AMQP.BasicProperties mine =
        new AMQP.BasicProperties.Builder().headers(Map.of("x-job-type", "fast")).build();

    channel.basicPublish("ex", "rk", mine, new byte[0]);

    AMQP.BasicProperties sent = sentProps();
    assertThat(sent.getPriority()).isNull();
    assertThat(textual(sent.getHeaders()))
        .containsEntry(HarbingerHeaders.STAMP, "v1;l=0;m=s;t=" + NOW_MICROS);
  }

  @Test
  void publish_routerInShadowMode_keepsCallerPriority() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.SHADOW)));
    AMQP.BasicProperties mine =
        new AMQP.BasicProperties.Builder()
            .headers(Map.of("x-job-type", "slow"))
            .priority(4)
            .build();

    channel.basicPublish("ex", "rk", mine, new byte[0]);

    AMQP.BasicProperties sent = sentProps();
    assertThat(sent.getPriority()).isEqualTo(4);
    assertThat(textual(sent.getHeaders()))
        .containsEntry(HarbingerHeaders.STAMP, "v1;l=2;m=s;t=" + NOW_MICROS);
  }

  @Test
  void publish_routerThrows_goesOutAtDefaultLevelAndIsCounted() throws Exception {
    Router broken =
        new Router() {
          @Override
          public Prediction route(String key) {
            throw new IllegalStateException("predictor down");
          }

          @Override
          public int levels() {
            return 5;
          }
        };
    Channel channel = wrap(ChannelOptions.builder("shop").router(broken));

    channel.basicPublish("ex", "rk", withJobType("fast"), new byte[0]);

    AMQP.BasicProperties sent = sentProps();
    assertThat(sent.getPriority()).isEqualTo(2);
    assertThat(stampOf(sent).level()).isEqualTo(2);
    assertThat(PredictiveChannels.optionsOf(channel).stats().routerFailures()).isEqualTo(1);
  }

  @Test
  void publish_routerAnswersNullOrLevelOutOfRange_goesOutAtDefaultLevel() throws Exception {
    Router wrong =
        new Router() {
          int calls;

          @Override
          public Prediction route(String key) {
            return calls++ == 0
                ? null
                : new Prediction(7, 7, Outcome.PREDICTED, 1, Mode.PREDICTIVE);
          }

          @Override
          public int levels() {
            return 3;
          }
        };
    Channel channel = wrap(ChannelOptions.builder("shop").router(wrong));

    channel.basicPublish("ex", "rk", withJobType("a"), new byte[0]);
    channel.basicPublish("ex", "rk", withJobType("a"), new byte[0]);

    ArgumentCaptor<AMQP.BasicProperties> p = ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate, org.mockito.Mockito.times(2))
        .basicPublish(eq("ex"), eq("rk"), eq(false), eq(false), p.capture(), any(byte[].class));
    assertThat(p.getAllValues())
        .extracting(AMQP.BasicProperties::getPriority)
        .containsExactly(1, 1);
    var stats = PredictiveChannels.optionsOf(channel).stats();
    assertThat(stats.routerFailures()).isEqualTo(1);
    assertThat(stats.invalidLevels()).isEqualTo(1);
  }

  @Test
  void publish_noRouter_goesOutAtDefaultLevelAndIsCounted() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").levels(5));

    channel.basicPublish("ex", "rk", withJobType("fast"), new byte[0]);

    assertThat(sentProps().getPriority()).isEqualTo(2);
    assertThat(PredictiveChannels.optionsOf(channel).stats().routerAbsent()).isEqualTo(1);
  }

  @Test
  void publish_foreignUserId_isReplacedByConnectionUserAndCounted() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));
    AMQP.BasicProperties forged =
        new AMQP.BasicProperties.Builder()
            .userId("mallory")
            .headers(Map.of("x-job-type", "fast"))
            .build();

    channel.basicPublish("ex", "rk", forged, new byte[0]);

    assertThat(sentProps().getUserId()).isEqualTo("shop");
    assertThat(routedKeys).containsExactly(Keys.of("shop", "fast"));
    assertThat(PredictiveChannels.optionsOf(channel).stats().userIdReplaced()).isEqualTo(1);
  }

  @Test
  void publish_customJobTypeHeaderAndLongString_formTheKey() throws Exception {
    Channel channel =
        wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)).jobTypeHeader("task"));
    AMQP.BasicProperties props =
        new AMQP.BasicProperties.Builder()
            .headers(Map.of("task", LongStringHelper.asLongString("fast"), "x-job-type", "slow"))
            .build();

    channel.basicPublish("ex", "rk", props, new byte[0]);

    assertThat(routedKeys).containsExactly(Keys.of("shop", "fast"));
    assertThat(sentProps().getPriority()).isEqualTo(2);
  }

  @Test
  void publish_oversizedOrControlJobType_fallsBackToProducerKey() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));

    channel.basicPublish("ex", "rk", withJobType("x".repeat(500)), new byte[0]);
    channel.basicPublish("ex", "rk", withJobType("a\nb"), new byte[0]);

    assertThat(routedKeys).containsExactly("shop", "shop");
  }

  @Test
  void publish_sizeHintsOn_passBodyLength() throws Exception {
    Channel channel =
        wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)).sizeHints(true));

    channel.basicPublish("ex", "rk", withJobType("fast"), new byte[3000]);

    assertThat(routedSizes).containsExactly(3000L);
  }

  @Test
  void publish_sizeHintHeader_isTheSizeHint_garbageFallsBackToBodyLengthAndIsCounted()
      throws Exception {
    Channel channel =
        wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)).sizeHints(true));
    AMQP.BasicProperties hinted = withSize("resize", 12_000_000L);
    AMQP.BasicProperties asText = withSize("resize", "640");
    AMQP.BasicProperties garbage = withSize("resize", "lots");

    channel.basicPublish("ex", "rk", hinted, new byte[30]);
    channel.basicPublish("ex", "rk", asText, new byte[30]);
    channel.basicPublish("ex", "rk", garbage, new byte[30]);

    assertThat(routedSizes).containsExactly(12_000_000L, 640L, 30L);
    var stats = PredictiveChannels.optionsOf(channel).stats();
    assertThat(stats.invalidSizeHints()).isEqualTo(1);
    assertThat(stats.published()).isEqualTo(3);
    // The header goes out as the caller set it: the consumer reads the same size.
    ArgumentCaptor<AMQP.BasicProperties> sent = ArgumentCaptor.forClass(AMQP.BasicProperties.class);
    verify(delegate, org.mockito.Mockito.times(3))
        .basicPublish(eq("ex"), eq("rk"), eq(false), eq(false), sent.capture(), any(byte[].class));
    assertThat(sent.getAllValues())
        .extracting(p -> String.valueOf(p.getHeaders().get(ChannelOptions.SIZE_HINT_HEADER)))
        .containsExactly("12000000", "640", "lots");
  }

  @Test
  void publish_sizeHintsOff_headerIsNotRead() throws Exception {
    Channel channel = wrap(ChannelOptions.builder("shop").router(router(Mode.PREDICTIVE)));
    AMQP.BasicProperties garbage = withSize("resize", "lots");

    channel.basicPublish("ex", "rk", garbage, new byte[30]);

    // Routed without a size (the test router records -1 then).
    assertThat(routedSizes).containsExactly(-1L);
    assertThat(PredictiveChannels.optionsOf(channel).stats().invalidSizeHints()).isZero();
  }

  @Test
  void wrap_recoverableDelegate_isRecoverable_plainIsNot() {
    Channel recoverable =
        mock(Channel.class, org.mockito.Mockito.withSettings().extraInterfaces(Recoverable.class));
    ChannelOptions options = ChannelOptions.builder("shop").build();

    assertThat(PredictiveChannels.wrap(recoverable, options)).isInstanceOf(Recoverable.class);
    assertThat(PredictiveChannels.wrap(delegate, options)).isNotInstanceOf(Recoverable.class);
  }

  @Test
  void options_badValues_areRefusedWithTheRule() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ChannelOptions.builder("").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("user must be non-empty");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ChannelOptions.builder("a\u0001").build())
        .hasMessageContaining("control characters");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ChannelOptions.builder("shop").levels(11).build())
        .hasMessage("levels must be in [2, 10]: 11");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ChannelOptions.builder("shop").jobTypeHeader("").build())
        .hasMessageContaining("jobTypeHeader");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> PredictiveChannels.optionsOf(delegate))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void publish_delegateFails_exceptionReachesCaller() throws Exception {
    org.mockito.Mockito.doThrow(new java.io.IOException("closed"))
        .when(delegate)
        .basicPublish(any(), any(), anyBoolean(), anyBoolean(), any(), any(byte[].class));
    Channel channel = wrap(ChannelOptions.builder("shop"));

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> channel.basicPublish("ex", "rk", null, new byte[0]))
        .isInstanceOf(java.io.IOException.class)
        .hasMessage("closed");
  }

  private static StampHeader.Reading stampOf(AMQP.BasicProperties sent) {
    return StampHeader.parse(sent.getHeaders().get(HarbingerHeaders.STAMP), 10);
  }

  /** The headers with the stamp as its text: a wrapped channel sends it as a byte array. */
  static Map<String, Object> textual(Map<String, Object> headers) {
    Map<String, Object> copy = new java.util.HashMap<>(headers);
    copy.computeIfPresent(HarbingerHeaders.STAMP, (k, v) -> StampHeader.text(v));
    return copy;
  }
}
