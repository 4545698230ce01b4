package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class MessageStamperTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.ofEpochSecond(1_700_000_000L, 123_456_789), ZoneOffset.UTC);
  private static final long NOW_MICROS = 1_700_000_000_123_456L;

  private final List<String> routedKeys = new ArrayList<>();

  /** A 3-level router: "fast" jobs at level 0, "slow" at 2, the rest untrusted at 1. */
  private Router router(Mode mode) {
    return new Router() {
      @Override
      public Prediction route(String key) {
        routedKeys.add(key);
        int predicted = key.endsWith("fast") ? 0 : key.endsWith("slow") ? 2 : 1;
        Outcome outcome = predicted == 1 ? Outcome.COLD : Outcome.PREDICTED;
        return new Prediction(
            mode == Mode.PREDICTIVE ? predicted : 1, predicted, outcome, 1e6, mode);
      }

      @Override
      public int levels() {
        return 3;
      }
    };
  }

  private static ChannelOptions.Builder options() {
    return ChannelOptions.builder("shop").clock(CLOCK);
  }

  @Test
  void stamp_trustedShortKey_topPriorityUserAndHeaders() {
    MessageStamper stamper =
        MessageStamper.create(options().router(router(Mode.PREDICTIVE)).build(), null);

    Stamp s = stamper.stamp("", "jobs", "fast", 10, null, null);

    assertThat(routedKeys).containsExactly(Keys.of("shop", "fast"));
    assertThat(s.level()).isZero();
    assertThat(s.priority()).isEqualTo(2);
    assertThat(s.userId()).isEqualTo("shop");
    assertThat(s.publishedAtMicros()).isEqualTo(NOW_MICROS);
    Map<String, Object> headers = new HashMap<>(Map.of("x-job-type", "fast"));
    s.putHeaders(headers);
    assertThat(headers)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("x-job-type", "fast", HarbingerHeaders.STAMP, "v1;l=0;m=p;t=" + NOW_MICROS));
  }

  @Test
  void stamp_noJobType_routesTheProducerOnlyKey() {
    MessageStamper stamper =
        MessageStamper.create(options().router(router(Mode.PREDICTIVE)).build(), null);

    stamper.stamp("", "jobs", null, 0, null, null);

    assertThat(routedKeys).containsExactly(Keys.of("shop", null));
    assertThat(stamper.keyOf(null)).isEqualTo(Keys.of("shop", null));
  }

  @Test
  void stamp_shadowOrQueueWithoutPriorities_keepsTheCallersPriority() {
    MessageStamper shadow =
        MessageStamper.create(options().router(router(Mode.PREDICTIVE)).shadow(true).build(), null);
    Stamp s = shadow.stamp("", "jobs", "fast", 0, 7, null);
    assertThat(s.priority()).isEqualTo(7);
    assertThat(s.level()).isZero();
    assertThat(s.mode()).isEqualTo("shadow");

    String queue = "stamper-quorum-" + System.nanoTime();
    DeclaredQueues.SHARED.declared(queue, Map.of("x-queue-type", "quorum"));
    MessageStamper on3 =
        MessageStamper.create(options().router(router(Mode.PREDICTIVE)).build(), "3.10.8");
    assertThat(on3.stamp("", queue, "fast", 0, null, null).priority()).isNull();
    MessageStamper on4 =
        MessageStamper.create(options().router(router(Mode.PREDICTIVE)).build(), "4.0.5");
    assertThat(on4.stamp("", queue, "fast", 0, null, null).priority()).isEqualTo(5);
    assertThat(on4.stamp("", queue, "slow", 0, null, null).priority()).isEqualTo(4);
  }

  @Test
  void stamp_foreignUserIdOrNoRouter_isReplacedAndCounted() {
    ChannelOptions o = options().build();
    MessageStamper stamper = MessageStamper.create(o, null);

    Stamp s = stamper.stamp("", "jobs", "fast", 0, null, "mallory");

    assertThat(s.userId()).isEqualTo("shop");
    assertThat(s.level()).isEqualTo(1);
    assertThat(o.stats().userIdReplaced()).isEqualTo(1);
    assertThat(o.stats().routerAbsent()).isEqualTo(1);
    assertThat(o.stats().published()).isEqualTo(1);
  }

  @Test
  void stamp_routerWithoutACurrentAnswer_goesAtItsDefaultLevelAndIsCountedAsUnavailable() {
    // What a sidecar router answers while its table is missing or stale.
    Router stale =
        new Router() {
          @Override
          public Prediction route(String key) {
            return Prediction.fallback(1, Outcome.UNAVAILABLE, Mode.PREDICTIVE);
          }

          @Override
          public int levels() {
            return 3;
          }
        };
    ChannelOptions o = options().router(stale).build();
    MessageStamper stamper = MessageStamper.create(o, null);

    for (int i = 0; i < 5; i++) {
      assertThat(stamper.stamp("", "jobs", "fast", 0, null, null).level()).isEqualTo(1);
    }
    stamper = MessageStamper.create(options().router(router(Mode.PREDICTIVE)).build(), null);
    stamper.stamp("", "jobs", "fast", 0, null, null);

    assertThat(o.stats().routerUnavailable()).isEqualTo(5);
    assertThat(o.stats().routerFailures()).isZero();
    assertThat(ClientStats.source(o.stats()).get().routerUnavailable()).isEqualTo(5);
  }

  /** The wrapped channel and the stamper are one definition: the same inputs, the same wire. */
  @Test
  void stamp_sameInputs_isWhatTheWrappedChannelSends() throws Exception {
    for (boolean shadow : new boolean[] {false, true}) {
      for (String jobType : new String[] {"fast", "slow", "other", null}) {
        ChannelOptions o = options().router(router(Mode.PREDICTIVE)).shadow(shadow).build();
        Channel delegate = mock(Channel.class);
        Map<String, Object> callerHeaders = new HashMap<>();
        callerHeaders.put("trace", "t-1");
        if (jobType != null) {
          callerHeaders.put("x-job-type", jobType);
        }
        AMQP.BasicProperties caller =
            new AMQP.BasicProperties.Builder().headers(callerHeaders).priority(3).build();
        PredictiveChannels.wrap(delegate, o).basicPublish("", "jobs", caller, new byte[5]);
        ArgumentCaptor<AMQP.BasicProperties> sent =
            ArgumentCaptor.forClass(AMQP.BasicProperties.class);
        verify(delegate)
            .basicPublish(eq(""), eq("jobs"), eq(false), eq(false), sent.capture(), any());

        Stamp s = MessageStamper.create(o, null).stamp("", "jobs", jobType, 5, 3, null);
        Map<String, Object> stamped = new HashMap<>(callerHeaders);
        s.putHeaders(stamped);
        assertThat(PublishTest.textual(sent.getValue().getHeaders())).isEqualTo(stamped);
        assertThat(sent.getValue().getPriority()).isEqualTo(s.priority());
        assertThat(sent.getValue().getUserId()).isEqualTo(s.userId());
      }
    }
  }

  @Test
  void stamp_badValues_areRefusedWithTheRule() {
    assertThatThrownBy(() -> new Stamp(10, null, "shop", 1, "predictive"))
        .hasMessage("level must be in [0, 10): 10");
    assertThatThrownBy(() -> new Stamp(0, null, "shop", 0, "predictive"))
        .hasMessage("publishedAtMicros must be positive epoch microseconds: 0");
    assertThatThrownBy(() -> new Stamp(0, null, "shop", 1, "fast"))
        .hasMessage("mode must be predictive, shadow or off: fast");
    assertThatThrownBy(() -> Stamp.headerValue(1, -1, "off"))
        .hasMessage("level must be in [0, 10): -1");
    assertThatThrownBy(() -> MessageStamper.create(null, null)).hasMessage("options");
  }
}
