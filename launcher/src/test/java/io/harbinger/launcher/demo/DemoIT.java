package io.harbinger.launcher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.harbinger.testing.EachBroker;
import io.harbinger.testing.TestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The README's main job, shortened: both runs complete, nothing is lost, Harbinger's run improves
 * on FIFO as the demo claims, and the table and the page are written.
 */
class DemoIT {

  /** The table's last row: the change in mean, short-job P50 and P99 from FIFO to Harbinger. */
  private static final Pattern CHANGE =
      Pattern.compile(
          "^change\\s+([+-][0-9.]+)%\\s+([+-][0-9.]+)%\\s+([+-][0-9.]+)%$", Pattern.MULTILINE);

  @TempDir Path dir;

  @EachBroker
  void demo_quickRun_improvesOnFifo_printsTheTableAndWritesThePage(TestBroker broker)
      throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    root.addAppender(logged);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Path page = dir.resolve("demo.html");
    int code =
        new CommandLine(new DemoCommand(new PrintStream(out, true, StandardCharsets.UTF_8)))
            .execute("--uri", broker.uri(), "--time-scale", "0.15", "--output", page.toString());
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(text).isZero();
    assertThat(text)
        .contains("RabbitMQ FIFO")
        .contains("RabbitMQ + Harbinger")
        .contains("short-job P50")
        .contains("What Harbinger learned")
        .contains("After run 1, shadow mode, not reordering: 4 keys trusted")
        .containsPattern("Now reordering: 4 keys trusted, 0 learning .*; safeguard estimate made")
        .doesNotContain("LOST");
    Matcher change = CHANGE.matcher(text);
    assertThat(change.find()).as("the change row in:%n%s", text).isTrue();
    double meanChange = Double.parseDouble(change.group(1));
    double shortP50Change = Double.parseDouble(change.group(2));
    assertThat(meanChange).as("change in mean latency, %%, in:%n%s", text).isNegative();
    assertThat(shortP50Change)
        .as("change in the short jobs' median latency, %%, in:%n%s", text)
        .isLessThan(-50);
    assertThat(Files.readString(page)).contains("<svg").contains("RabbitMQ + Harbinger");
    root.detachAppender(logged);
    assertThat(logged.list)
        .as("a demo that went well logs no warning a newcomer would read as a fault")
        .noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
  }
}
