package io.harbinger.experiments.levels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trade-off chart's inputs: replay TSVs and bench output directories, and their errors. */
class TradeoffChartTest {

  @TempDir Path dir;

  private static final String SUMMARY =
      """
      {"format": "harbinger-analysis-v1", "arms": [
        {"arm": "rabbitmq-fifo", "baseline": null, "deltas": []},
        {"arm": "rabbitmq-lanes-quorum", "baseline": "rabbitmq-fifo", "deltas": [
          {"metric": "mean_ms", "point": -0.53, "low": -0.56, "high": -0.50},
          {"metric": "p99_ms", "point": 0.377, "low": 0.33, "high": 0.44}]}
      ]}
      """;

  @Test
  void benchDirectory_givesEachArmWithABaseline_itsPairedChanges() throws IOException {
    Path bench = Files.createDirectory(dir.resolve("lanes-x"));
    Files.writeString(bench.resolve("summary.json"), SUMMARY);
    List<TradeoffChart.Point> points = TradeoffChart.read("measured", bench);
    assertThat(points).hasSize(1);
    TradeoffChart.Point p = points.get(0);
    assertThat(p.arm()).isEqualTo("lanes-x: rabbitmq-lanes-quorum");
    assertThat(p.meanChange()).isEqualTo(-0.53);
    assertThat(p.p99Ratio()).isCloseTo(1.377, org.assertj.core.data.Offset.offset(1e-9));
    String svg = TradeoffChart.svg(points);
    assertThat(svg).contains("measured lanes-x: rabbitmq-lanes-quorum: -53.0%, 1.38x");
  }

  @Test
  void tsv_givesOnePointPerRow() throws IOException {
    Path tsv = dir.resolve("sweep.tsv");
    Files.writeString(tsv, "arm\tmean_change\tp99_ratio\nfifo\t0\t1\npredictive\t-0.578\t1.098\n");
    assertThat(TradeoffChart.read("simulated", tsv))
        .extracting(TradeoffChart.Point::arm)
        .containsExactly("fifo", "predictive");
  }

  @Test
  void badInputs_areRefusedNamingTheFile() throws IOException {
    Path empty = Files.createDirectory(dir.resolve("not-a-bench"));
    assertThatThrownBy(() -> TradeoffChart.read("measured", empty))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not-a-bench")
        .hasMessageContaining("no summary.json");
    Path garbled = Files.createDirectory(dir.resolve("garbled"));
    Files.writeString(garbled.resolve("summary.json"), "{\"arms\": [");
    assertThatThrownBy(() -> TradeoffChart.read("measured", garbled))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("summary.json")
        .hasMessageContaining("not JSON");
    Path noDelta = Files.createDirectory(dir.resolve("no-delta"));
    Files.writeString(
        noDelta.resolve("summary.json"),
        "{\"arms\": [{\"arm\": \"a\", \"baseline\": \"rabbitmq-fifo\", \"deltas\": []}]}");
    assertThatThrownBy(() -> TradeoffChart.read("measured", noDelta))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("arm a has no mean_ms or p99_ms delta");
    Path tsv = dir.resolve("columns.tsv");
    Files.writeString(tsv, "name\tmean\n");
    assertThatThrownBy(() -> TradeoffChart.read("simulated", tsv))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("needs the columns arm, mean_change and p99_ratio");
    Path words = dir.resolve("words.tsv");
    Files.writeString(words, "arm\tmean_change\tp99_ratio\nlanes\tfast\t1.1\n");
    assertThatThrownBy(() -> TradeoffChart.read("simulated", words))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("words.tsv: not an arm with two numbers: lanes\tfast\t1.1");
  }
}
