package io.harbinger.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation holds together: every relative link in every Markdown file of the repository
 * reaches a file (and, with a {@code #fragment} into a Markdown file, one of its headings), the
 * front page stays under 15,000 bytes and the evidence page under 300 lines.
 *
 * <p>Implementation notes: links are Markdown inline links {@code [text](target)} outside fenced
 * code blocks and code spans; targets with a scheme ({@code https:}, {@code mailto:}) are not
 * followed. Heading anchors are made the way GitHub makes them: lower case, punctuation other than
 * hyphens and underscores removed, spaces turned into hyphens, a repeated heading numbered {@code
 * -1}, {@code -2}.
 */
class DocsTest {

  private static final Pattern LINK =
      Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");
  private static final Set<String> SKIPPED_FOLDERS =
      Set.of(".git", "target", "node_modules", ".harbinger", ".mvn");

  @Test
  void links_everyRelativeLinkReachesItsTarget() throws IOException {
    assertThat(deadLinks(Repository.root())).isEmpty();
  }

  @Test
  void readme_isAFrontPageOfAtMost15000Bytes() throws IOException {
    assertThat(Files.size(Repository.root().resolve("README.md"))).isLessThanOrEqualTo(15_000);
  }

  @Test
  void evidence_isOnePageOfAtMost300Lines() throws IOException {
    assertThat(Files.readAllLines(Repository.root().resolve("docs/evidence.md")))
        .hasSizeLessThan(301);
  }

  @Test
  void deadLinks_findsAMissingFileAndAMissingHeading(@TempDir Path dir) throws IOException {
    Files.createDirectories(dir.resolve("docs"));
    Files.writeString(
        dir.resolve("README.md"),
        "# Title\n\nSee [the page](docs/page.md#the-part), [gone](docs/gone.md) and"
            + " [the top](#title).\n\n```\n[not a link](nowhere.md)\n```\n"
            + "`[nor this](nowhere.md)` and [outside](https://example.org/x.md).\n");
    Files.writeString(
        dir.resolve("docs/page.md"),
        "# Page\n\n## The part\n\nBack [home](../README.md#missing-part) and [up](../README.md).\n");
    assertThat(deadLinks(dir))
        .containsExactlyInAnyOrder(
            "README.md: docs/gone.md (no such file)",
            "docs/page.md: ../README.md#missing-part (no heading 'missing-part')");
  }

  @Test
  void anchor_followsGitHubsRules() {
    assertThat(anchor("Lanes: reordering on quorum queues, and RabbitMQ 4!"))
        .isEqualTo("lanes-reordering-on-quorum-queues-and-rabbitmq-4");
    assertThat(anchor("The `check` verb (`./harbinger check`)"))
        .isEqualTo("the-check-verb-harbinger-check");
  }

  /** Returns "file: target (reason)" for each dead relative link under a folder. */
  static List<String> deadLinks(Path root) throws IOException {
    List<String> dead = new ArrayList<>();
    for (Path file : markdownFiles(root)) {
      for (String target : links(Files.readString(file, StandardCharsets.UTF_8))) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue;
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        String where = root.relativize(file).toString().replace('\\', '/') + ": " + target;
        if (!Files.exists(resolved)) {
          dead.add(where + " (no such file)");
        } else if (fragment != null
            && resolved.toString().endsWith(".md")
            && !anchors(Files.readString(resolved, StandardCharsets.UTF_8)).contains(fragment)) {
          dead.add(where + " (no heading '" + fragment + "')");
        }
      }
    }
    return dead;
  }

  private static List<Path> markdownFiles(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(p -> p.toString().endsWith(".md"))
          .filter(p -> Files.isRegularFile(p))
          .filter(
              p -> {
                for (Path part : root.relativize(p)) {
                  if (SKIPPED_FOLDERS.contains(part.toString())) {
                    return false;
                  }
                }
                return true;
              })
          .sorted()
          .forEach(files::add);
    }
    return files;
  }

  /** The link targets of a Markdown text, outside code blocks and code spans. */
  private static List<String> links(String text) {
    List<String> out = new ArrayList<>();
    boolean fenced = false;
    for (String line : text.split("\n", -1)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      if (fenced) {
        continue;
      }
      Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** The anchors of a Markdown text's headings, outside code blocks. */
  private static Set<String> anchors(String text) {
    Set<String> out = new HashSet<>();
    boolean fenced = false;
    for (String line : text.split("\n", -1)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (!fenced && m.matches()) {
        String base = anchor(m.group(1));
        String candidate = base;
        for (int n = 1; !out.add(candidate); n++) {
          candidate = base + "-" + n;
        }
      }
    }
    return out;
  }

  /** GitHub's anchor for a heading's text. */
  static String anchor(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        b.append(c);
      } else if (c == ' ') {
        b.append('-');
      }
    }
    return b.toString();
  }
}
