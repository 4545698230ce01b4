package io.harbinger.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AuthenticationFailureException;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartupRetryTest {

  private long nowNanos;
  private final List<Long> waits = new ArrayList<>();

  private StartupRetry retry(Duration budget) {
    return new StartupRetry(
        budget,
        () -> nowNanos,
        millis -> {
          waits.add(millis);
          nowNanos += millis * 1_000_000;
        });
  }

  @Test
  void connect_brokerUpAfterTwoRefusals_returnsTheConnectionAfterBackingOff() throws Exception {
    Object connection = new Object();
    int[] calls = {0};
    Object got =
        retry(Duration.ofSeconds(60))
            .connect(
                () -> {
                  if (++calls[0] < 3) {
                    throw new ConnectException("Connection refused");
                  }
                  return connection;
                },
                "amqp://127.0.0.1:5682/%2F",
                "harbinger");
    assertThat(got).isSameAs(connection);
    assertThat(waits).containsExactly(1_000L, 2_000L);
  }

  @Test
  void connect_brokerNeverUp_givesUpWhenTheBudgetIsSpentNamingTheFix() {
    assertThatThrownBy(
            () ->
                retry(Duration.ofSeconds(10))
                    .connect(
                        () -> {
                          throw new IOException(new ConnectException("Connection refused"));
                        },
                        "amqp://127.0.0.1:5682/%2F",
                        "harbinger"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("RabbitMQ at amqp://127.0.0.1:5682/%2F cannot be reached after 5")
        .hasMessageContaining("ConnectException: Connection refused")
        .hasMessageContaining("HARBINGER_RABBITMQ_URI");
    assertThat(waits).containsExactly(1_000L, 2_000L, 5_000L, 2_000L);
  }

  @Test
  void connect_refusedLogin_failsAtOnceNamingTheUserAndThePasswordSetting() {
    int[] calls = {0};
    assertThatThrownBy(
            () ->
                retry(Duration.ofSeconds(60))
                    .connect(
                        () -> {
                          calls[0]++;
                          throw new AuthenticationFailureException(
                              "ACCESS_REFUSED - Login was"
                                  + " refused using authentication mechanism PLAIN");
                        },
                        "amqp://127.0.0.1:5682/%2F",
                        "harbinger"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("refused the login of user 'harbinger'")
        .hasMessageContaining("HARBINGER_RABBITMQ_PASSWORD");
    assertThat(calls[0]).isEqualTo(1);
    assertThat(waits).isEmpty();
  }

  @Test
  void connect_zeroBudget_triesOnce() {
    int[] calls = {0};
    assertThatThrownBy(
            () ->
                retry(Duration.ZERO)
                    .connect(
                        () -> {
                          calls[0]++;
                          throw new ConnectException("Connection refused");
                        },
                        "amqp://127.0.0.1:1/%2F",
                        "guest"))
        .hasMessageContaining("after 1 attempt (");
    assertThat(calls[0]).isEqualTo(1);
  }
}
