package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.harbinger.predictor.Keys;
import io.harbinger.predictor.Mode;
import io.harbinger.predictor.Outcome;
import io.harbinger.predictor.Prediction;
import io.harbinger.predictor.Router;
import io.harbinger.rabbit.HarbingerHeaders;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.Ordered;

class HarbingerStampingTest {

  private final List<String> routed = new CopyOnWriteArrayList<>();
  private final CachingConnectionFactory connectionFactory =
      new CachingConnectionFactory("127.0.0.1", 1);
  private HarbingerRuntime runtime;

  @AfterEach
  void tearDown() throws Exception {
    if (runtime != null) {
      runtime.destroy();
    }
    connectionFactory.destroy();
  }

  /** A 3-level router: "fast" jobs at level 0, "slow" at 2, everything else untrusted at 1. */
  private final Router router =
      new Router() {
        @Override
        public Prediction route(String key) {
          routed.add(key);
          int level = key.endsWith("fast") ? 0 : key.endsWith("slow") ? 2 : 1;
          return new Prediction(
              level, level, level == 1 ? Outcome.COLD : Outcome.PREDICTED, 1e6, Mode.PREDICTIVE);
        }

        @Override
        public int levels() {
          return 3;
        }
      };

  private static HarbingerProperties properties(String... pairs) {
    java.util.Map<String, String> map = new java.util.HashMap<>();
    for (String p : pairs) {
      map.put(p.substring(0, p.indexOf('=')), p.substring(p.indexOf('=') + 1));
    }
    return new Binder(new MapConfigurationPropertySource(map))
        .bindOrCreate("harbinger", Bindable.of(HarbingerProperties.class));
  }

  private HarbingerStamping stamping(String... properties) {
    connectionFactory.setUsername("shop");
    runtime =
        new HarbingerRuntime(
            properties(properties),
            connectionFactory,
            new RouterSource(router, null, () -> true, "test", () -> {}));
    return new HarbingerStamping(runtime);
  }

  private static Message message(String jobType) {
    MessageProperties p = new MessageProperties();
    if (jobType != null) {
      p.setHeader("x-job-type", jobType);
    }
    p.setHeader("trace", "t-1");
    return new Message(new byte[] {1, 2, 3}, p);
  }

  @Test
  void postProcess_trustedShortKey_topPriorityUserAndHeaders() {
    Message m = stamping().postProcessMessage(message("fast"), null, "", "jobs");

    MessageProperties p = m.getMessageProperties();
    assertThat(routed).containsExactly(Keys.of("shop", "fast"));
    assertThat(p.getPriority()).isEqualTo(2);
    assertThat(p.getUserId()).isEqualTo("shop");
    assertThat(p.getHeaders())
        .containsEntry("trace", "t-1")
        .doesNotContainKeys(
            HarbingerHeaders.LEVEL, HarbingerHeaders.MODE, HarbingerHeaders.PUBLISHED_AT);
    assertThat(p.getHeaders().get(HarbingerHeaders.STAMP).toString())
        .matches("v1;l=0;m=p;t=[0-9]{16}");
  }

  @Test
  void postProcess_noJobType_routesTheProducerOnlyKey() {
    stamping().postProcessMessage(message(null), null, "", "jobs");

    assertThat(routed).containsExactly(Keys.of("shop", null));
  }

  @Test
  void postProcess_customJobTypeHeader_isTheOneRead() {
    MessageProperties p = new MessageProperties();
    p.setHeader("task", "slow");
    stamping("harbinger.job-type-header=task")
        .postProcessMessage(new Message(new byte[0], p), null, "", "q");

    assertThat(routed).containsExactly(Keys.of("shop", "slow"));
    assertThat(p.getPriority()).isZero();
  }

  @Test
  void postProcess_shadow_stampsTheLevelButKeepsTheCallersPriority() {
    Message m = message("fast");
    m.getMessageProperties().setPriority(1);
    stamping("harbinger.mode=shadow").postProcessMessage(m, null, "", "jobs");

    assertThat(m.getMessageProperties().getPriority()).isEqualTo(1);
    assertThat(m.getMessageProperties().getHeaders().get(HarbingerHeaders.STAMP).toString())
        .startsWith("v1;l=0;m=s;t=");
  }

  @Test
  void postProcess_foreignUserId_isReplacedAndCounted() {
    Message m = message("fast");
    m.getMessageProperties().setUserId("mallory");
    HarbingerStamping s = stamping();
    s.postProcessMessage(m);

    assertThat(m.getMessageProperties().getUserId()).isEqualTo("shop");
    assertThat(runtime.stats().userIdReplaced()).isEqualTo(1);
    assertThat(s.getOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE);
  }
}
