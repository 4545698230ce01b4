package io.harbinger.architecture.release;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What Maven Central requires of a deployed artifact, checked on a Maven repository directory (the
 * one {@code ./mvnw -Drelease deploy} writes): for every POM, the coordinates, a name, a
 * description, a URL, a license with its name and URL, a developer with a name, and SCM URL and
 * connection (all but the name may come from a parent POM in the same repository); beside every jar
 * artifact its {@code -sources.jar} and {@code -javadoc.jar}; for every file an ASCII-armoured
 * signature ({@code .asc}) and {@code .md5} and {@code .sha1} checksums that match. Harbinger adds
 * one rule of its own: every jar carries {@code META-INF/LICENSE} and {@code META-INF/NOTICE}.
 *
 * <p>A snapshot version is refused unless asked for: Central takes releases only, and a release
 * check of a snapshot build checks everything else.
 *
 * <p>Run: {@code java -cp architecture/target/test-classes
 * io.harbinger.architecture.release.CentralRequirements target/release-repository
 * [--allow-snapshot]}; exit code 0 when every artifact passes, 1 with one line per problem.
 */
public final class CentralRequirements {

  private static final List<String> LEGAL_FILES = List.of("META-INF/LICENSE", "META-INF/NOTICE");

  private CentralRequirements() {}

  /**
   * Checks a repository directory.
   *
   * @param repository the root of a Maven repository layout
   * @param allowSnapshot whether a snapshot version passes
   * @return one line per problem, naming the file and what it lacks; empty when it all passes
   * @throws IOException when the directory cannot be read
   */
  public static List<String> problems(Path repository, boolean allowSnapshot) throws IOException {
    List<String> problems = new ArrayList<>();
    if (!Files.isDirectory(repository)) {
      problems.add(repository + ": not a directory");
      return problems;
    }
    List<Path> poms;
    try (Stream<Path> files = Files.walk(repository)) {
      poms = files.filter(p -> p.toString().endsWith(".pom")).sorted().toList();
    }
    if (poms.isEmpty()) {
      problems.add(repository + ": no artifact (no .pom file)");
    }
    for (Path pom : poms) {
      checkArtifact(repository, pom, allowSnapshot, problems);
    }
    return problems;
  }

  private static void checkArtifact(
      Path repository, Path pom, boolean allowSnapshot, List<String> problems) {
    String where = repository.relativize(pom).toString();
    Element project;
    try {
      project = parse(pom);
    } catch (Exception e) {
      problems.add(where + ": not a readable POM (" + e.getMessage() + ")");
      return;
    }
    checkFile(where, pom, problems);
    String version = inherited(repository, project, "version").orElse("");
    if (direct(project, "artifactId").isEmpty()
        || inherited(repository, project, "groupId").isEmpty()
        || version.isEmpty()) {
      problems.add(where + ": groupId, artifactId and version must all be given");
    }
    if (version.endsWith("-SNAPSHOT") && !allowSnapshot) {
      problems.add(where + ": version " + version + " is a snapshot; Central takes releases only");
    }
    if (direct(project, "name").isEmpty()) {
      problems.add(where + ": no <name>");
    }
    for (String element : List.of("description", "url")) {
      if (inherited(repository, project, element).isEmpty()) {
        problems.add(where + ": no <" + element + ">, here or in a parent");
      }
    }
    requireNested(
        repository, project, "licenses", "license", List.of("name", "url"), where, problems);
    requireNested(repository, project, "developers", "developer", List.of("name"), where, problems);
    Optional<Element> scm = inheritedElement(repository, project, "scm");
    if (scm.isEmpty()
        || text(scm.get(), "url").isEmpty()
        || text(scm.get(), "connection").isEmpty()) {
      problems.add(where + ": no <scm> with <url> and <connection>, here or in a parent");
    }

    String packaging = direct(project, "packaging").orElse("jar");
    if (!packaging.equals("pom")) {
      String base = pom.getFileName().toString().replaceFirst("\\.pom$", "");
      for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
        Path jar = pom.resolveSibling(base + suffix);
        if (!Files.isRegularFile(jar)) {
          problems.add(where + ": no " + jar.getFileName());
        }
      }
    }
    try (Stream<Path> siblings = Files.list(pom.getParent())) {
      for (Path jar : siblings.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
        String jarWhere = repository.relativize(jar).toString();
        if (jar.getFileName().toString().startsWith(baseName(pom))) {
          checkFile(jarWhere, jar, problems);
          checkLegalFiles(jarWhere, jar, problems);
        }
      }
    } catch (IOException e) {
      problems.add(where + ": cannot list its directory (" + e.getMessage() + ")");
    }
  }

  private static String baseName(Path pom) {
    return pom.getFileName().toString().replaceFirst("\\.pom$", "");
  }

  /** A file's signature and checksums. */
  private static void checkFile(String where, Path file, List<String> problems) {
    Path asc = file.resolveSibling(file.getFileName() + ".asc");
    try {
      if (!Files.isRegularFile(asc)) {
        problems.add(where + ": no signature (" + asc.getFileName() + ")");
      } else if (!Files.readString(asc).startsWith("-----BEGIN PGP SIGNATURE-----")) {
        problems.add(where + ": " + asc.getFileName() + " is not an ASCII-armoured PGP signature");
      }
      for (String algorithm : List.of("MD5", "SHA-1")) {
        String ext = algorithm.equals("MD5") ? ".md5" : ".sha1";
        Path sum = file.resolveSibling(file.getFileName() + ext);
        if (!Files.isRegularFile(sum)) {
          problems.add(where + ": no " + algorithm + " checksum (" + sum.getFileName() + ")");
        } else {
          String expected = Files.readString(sum).trim().split("\\s+")[0].toLowerCase();
          String actual = digest(file, algorithm);
          if (!expected.equals(actual)) {
            problems.add(
                where
                    + ": "
                    + sum.getFileName()
                    + " says "
                    + expected
                    + " but the file's "
                    + algorithm
                    + " is "
                    + actual);
          }
        }
      }
    } catch (IOException e) {
      problems.add(where + ": cannot be read (" + e.getMessage() + ")");
    }
  }

  private static void checkLegalFiles(String where, Path jar, List<String> problems) {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (String name : LEGAL_FILES) {
        ZipEntry entry = zip.getEntry(name);
        if (entry == null || entry.getSize() == 0) {
          problems.add(where + ": no " + name);
        }
      }
    } catch (IOException e) {
      problems.add(where + ": not a readable jar (" + e.getMessage() + ")");
    }
  }

  private static String digest(Path file, String algorithm) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance(algorithm);
      byte[] buffer = new byte[64 * 1024];
      int n;
      while ((n = in.read(buffer)) > 0) {
        md.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is a JDK algorithm", e);
    }
  }

  private static void requireNested(
      Path repository,
      Element project,
      String list,
      String item,
      List<String> fields,
      String where,
      List<String> problems) {
    Optional<Element> container = inheritedElement(repository, project, list);
    boolean ok =
        container.isPresent()
            && children(container.get(), item).stream()
                .anyMatch(e -> fields.stream().allMatch(f -> text(e, f).isPresent()));
    if (!ok) {
      problems.add(
          where
              + ": no <"
              + item
              + "> with "
              + String.join(" and ", fields.stream().map(f -> "<" + f + ">").toList())
              + ", here or in a parent");
    }
  }

  private static Optional<String> inherited(Path repository, Element project, String element) {
    Optional<String> own = direct(project, element);
    if (own.isPresent()) {
      return own;
    }
    if (element.equals("groupId") || element.equals("version")) {
      Optional<Element> parent = child(project, "parent");
      if (parent.isPresent()) {
        return text(parent.get(), element);
      }
    }
    return parent(repository, project).flatMap(p -> inherited(repository, p, element));
  }

  private static Optional<Element> inheritedElement(
      Path repository, Element project, String element) {
    Optional<Element> own = child(project, element);
    if (own.isPresent()) {
      return own;
    }
    return parent(repository, project).flatMap(p -> inheritedElement(repository, p, element));
  }

  /** The parent POM, when the repository holds it. */
  private static Optional<Element> parent(Path repository, Element project) {
    Optional<Element> ref = child(project, "parent");
    if (ref.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> g = text(ref.get(), "groupId");
    Optional<String> a = text(ref.get(), "artifactId");
    Optional<String> v = text(ref.get(), "version");
    if (g.isEmpty() || a.isEmpty() || v.isEmpty()) {
      return Optional.empty();
    }
    Path dir = repository.resolve(g.get().replace('.', '/')).resolve(a.get()).resolve(v.get());
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(dir)) {
      Optional<Path> pom =
          files.filter(p -> p.toString().endsWith(".pom")).sorted().reduce((x, y) -> y);
      return pom.isEmpty() ? Optional.empty() : Optional.of(parse(pom.get()));
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  private static Element parse(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document doc = factory.newDocumentBuilder().parse(pom.toFile());
    Element root = doc.getDocumentElement();
    if (!root.getTagName().equals("project")) {
      throw new IOException("the root element is <" + root.getTagName() + ">, not <project>");
    }
    return root;
  }

  private static Optional<String> direct(Element project, String element) {
    return text(project, element);
  }

  private static Optional<String> text(Element parent, String element) {
    return child(parent, element).map(e -> e.getTextContent().trim()).filter(t -> !t.isEmpty());
  }

  private static Optional<Element> child(Element parent, String element) {
    List<Element> found = children(parent, element);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  private static List<Element> children(Element parent, String element) {
    List<Element> found = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(element)) {
        found.add(e);
      }
    }
    return found;
  }

  /**
   * Checks the repository a command line names and prints what fails.
   *
   * @param args the repository directory, then optionally {@code --allow-snapshot}
   * @throws IOException when the directory cannot be read
   */
  public static void main(String[] args) throws IOException {
    if (args.length < 1
        || args.length > 2
        || (args.length == 2 && !args[1].equals("--allow-snapshot"))) {
      System.err.println("usage: CentralRequirements REPOSITORY_DIR [--allow-snapshot]");
      System.exit(2);
    }
    List<String> problems = problems(Path.of(args[0]), args.length == 2);
    if (problems.isEmpty()) {
      System.out.println(
          "release check: every artifact in " + args[0] + " meets Central's requirements");
      return;
    }
    problems.forEach(p -> System.out.println("release check: " + p));
    System.out.println("release check: " + problems.size() + " problem(s)");
    System.exit(1);
  }
}
