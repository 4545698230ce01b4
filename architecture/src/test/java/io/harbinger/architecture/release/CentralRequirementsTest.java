package io.harbinger.architecture.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The release check on small repositories built here: one that passes, and each way to fail. */
class CentralRequirementsTest {

  private static final String PARENT_METADATA =
      """
        <description>d</description>
        <url>https://example.org/p</url>
        <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>
        <developers><developer><name>Maintainers</name></developer></developers>
        <scm><url>https://example.org/p</url><connection>scm:git:https://example.org/p.git</connection></scm>
      """;

  @TempDir Path repo;

  private Path parentDir;
  private Path childDir;

  @BeforeEach
  void goodRepository() throws Exception {
    parentDir = repo.resolve("org/example/parent/1.0.0");
    childDir = repo.resolve("org/example/child/1.0.0");
    writeParent(PARENT_METADATA);
    Files.createDirectories(childDir);
    file(
        childDir.resolve("child-1.0.0.pom"),
        """
        <project>
          <parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0.0</version></parent>
          <artifactId>child</artifactId>
          <name>Child</name>
        </project>
        """
            .getBytes(StandardCharsets.UTF_8));
    for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
      file(childDir.resolve("child-1.0.0" + suffix), jar("META-INF/LICENSE", "META-INF/NOTICE"));
    }
  }

  @Test
  void aCompleteRepository_passes() throws IOException {
    assertThat(CentralRequirements.problems(repo, false)).isEmpty();
  }

  @Test
  void missingSourcesJar_isNamed() throws IOException {
    delete(childDir.resolve("child-1.0.0-sources.jar"));
    assertThat(CentralRequirements.problems(repo, false))
        .containsExactly("org/example/child/1.0.0/child-1.0.0.pom: no child-1.0.0-sources.jar");
  }

  @Test
  void missingJavadocJar_isNamed() throws IOException {
    delete(childDir.resolve("child-1.0.0-javadoc.jar"));
    assertThat(CentralRequirements.problems(repo, false))
        .containsExactly("org/example/child/1.0.0/child-1.0.0.pom: no child-1.0.0-javadoc.jar");
  }

  @Test
  void scmMissingEverywhere_isNamedForEveryPom() throws Exception {
    writeParent(PARENT_METADATA.replaceAll("<scm>.*</scm>", ""));
    assertThat(CentralRequirements.problems(repo, false))
        .hasSize(2)
        .allMatch(p -> p.endsWith("no <scm> with <url> and <connection>, here or in a parent"));
  }

  @Test
  void aLicenseWithoutItsUrl_andNoDeveloper_areNamed() throws Exception {
    writeParent(
        PARENT_METADATA
            .replace("<url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>", "")
            .replaceAll("<developers>.*</developers>", ""));
    List<String> problems = CentralRequirements.problems(repo, false);
    assertThat(problems).anyMatch(p -> p.contains("no <license> with <name> and <url>"));
    assertThat(problems).anyMatch(p -> p.contains("no <developer> with <name>"));
  }

  @Test
  void aPomWithoutName_isNamed_becauseNamesAreNotInherited() throws IOException {
    Path pom = childDir.resolve("child-1.0.0.pom");
    String text = Files.readString(pom).replace("<name>Child</name>", "");
    file(pom, text.getBytes(StandardCharsets.UTF_8));
    assertThat(CentralRequirements.problems(repo, false))
        .containsExactly("org/example/child/1.0.0/child-1.0.0.pom: no <name>");
  }

  @Test
  void aChecksumThatDoesNotMatch_isNamed() throws IOException {
    Files.writeString(childDir.resolve("child-1.0.0.jar.sha1"), "0".repeat(40));
    assertThat(CentralRequirements.problems(repo, false))
        .singleElement()
        .asString()
        .startsWith("org/example/child/1.0.0/child-1.0.0.jar: child-1.0.0.jar.sha1 says 0000");
  }

  @Test
  void aMissingOrForgedSignature_isNamed() throws IOException {
    delete(childDir.resolve("child-1.0.0.jar.asc"));
    Files.writeString(childDir.resolve("child-1.0.0.pom.asc"), "not a signature");
    assertThat(CentralRequirements.problems(repo, false))
        .containsExactlyInAnyOrder(
            "org/example/child/1.0.0/child-1.0.0.pom: child-1.0.0.pom.asc is not an"
                + " ASCII-armoured PGP signature",
            "org/example/child/1.0.0/child-1.0.0.jar: no signature (child-1.0.0.jar.asc)");
  }

  @Test
  void aJarWithoutNotice_isNamed() throws Exception {
    file(childDir.resolve("child-1.0.0-javadoc.jar"), jar("META-INF/LICENSE"));
    assertThat(CentralRequirements.problems(repo, false))
        .containsExactly("org/example/child/1.0.0/child-1.0.0-javadoc.jar: no META-INF/NOTICE");
  }

  @Test
  void aSnapshot_failsUnlessAllowed() throws Exception {
    Path snapshotDir = repo.resolve("org/example/snap/1.1.0-SNAPSHOT");
    Files.createDirectories(snapshotDir);
    file(
        snapshotDir.resolve("snap-1.1.0-20261207.120000-1.pom"),
        ("<project><groupId>org.example</groupId><artifactId>snap</artifactId>"
                + "<version>1.1.0-SNAPSHOT</version><packaging>pom</packaging><name>Snap</name>"
                + PARENT_METADATA
                + "</project>")
            .getBytes(StandardCharsets.UTF_8));
    assertThat(CentralRequirements.problems(repo, false))
        .containsExactly(
            "org/example/snap/1.1.0-SNAPSHOT/snap-1.1.0-20261207.120000-1.pom: version"
                + " 1.1.0-SNAPSHOT is a snapshot; Central takes releases only");
    assertThat(CentralRequirements.problems(repo, true)).isEmpty();
  }

  @Test
  void garbage_isNamed_andTheRestIsStillChecked() throws IOException {
    file(childDir.resolve("child-1.0.0.pom"), "<project><artifactId>".getBytes());
    file(childDir.resolve("child-1.0.0.jar"), "not a zip".getBytes());
    List<String> problems = CentralRequirements.problems(repo, false);
    assertThat(problems)
        .anyMatch(p -> p.startsWith("org/example/child/1.0.0/child-1.0.0.pom: not a readable POM"));
    assertThat(CentralRequirements.problems(repo.resolve("nothing-here"), false))
        .singleElement()
        .asString()
        .endsWith("nothing-here: not a directory");
  }

  @Test
  void anEmptyRepository_fails() throws IOException {
    Path empty = Files.createDirectories(repo.resolve("empty"));
    assertThat(CentralRequirements.problems(empty, false))
        .singleElement()
        .asString()
        .endsWith("no artifact (no .pom file)");
  }

  private void writeParent(String metadata) throws Exception {
    Files.createDirectories(parentDir);
    file(
        parentDir.resolve("parent-1.0.0.pom"),
        ("<project><groupId>org.example</groupId><artifactId>parent</artifactId>"
                + "<version>1.0.0</version><packaging>pom</packaging><name>Parent</name>"
                + metadata
                + "</project>")
            .getBytes(StandardCharsets.UTF_8));
  }

  /** Writes a file with its signature and checksums, as a deploy does. */
  private static void file(Path path, byte[] content) throws IOException {
    Files.write(path, content);
    Files.writeString(
        path.resolveSibling(path.getFileName() + ".asc"),
        "-----BEGIN PGP SIGNATURE-----\n\niQ==\n-----END PGP SIGNATURE-----\n");
    Files.writeString(path.resolveSibling(path.getFileName() + ".md5"), hex("MD5", content));
    Files.writeString(path.resolveSibling(path.getFileName() + ".sha1"), hex("SHA-1", content));
  }

  private static void delete(Path path) throws IOException {
    Files.delete(path);
  }

  private static byte[] jar(String... entries) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (OutputStream out = bytes;
        ZipOutputStream zip = new ZipOutputStream(out)) {
      for (String e : entries) {
        zip.putNextEntry(new ZipEntry(e));
        zip.write("text".getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
      }
    }
    return bytes.toByteArray();
  }

  private static String hex(String algorithm, byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(content));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
