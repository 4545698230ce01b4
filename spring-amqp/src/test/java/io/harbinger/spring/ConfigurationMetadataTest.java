package io.harbinger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The configuration metadata the module ships, which IDEs read to complete and describe {@code
 * harbinger.*} properties: every property is there with a plain-text description, and every
 * property with a default shows it.
 */
class ConfigurationMetadataTest {

  /** Properties that have no default: unset means "not used". */
  private static final Set<String> NO_DEFAULT =
      Set.of(
          "harbinger.router.sidecar.address",
          "harbinger.router.sidecar.token",
          "harbinger.router.sidecar.trust-certificates");

  @SuppressWarnings("unchecked")
  private static Map<String, Map<String, Object>> properties() throws Exception {
    try (InputStream in =
        ConfigurationMetadataTest.class.getResourceAsStream(
            "/META-INF/spring-configuration-metadata.json")) {
      assertThat(in)
          .as("META-INF/spring-configuration-metadata.json on the class path")
          .isNotNull();
      Map<String, Object> metadata =
          JsonParserFactory.getJsonParser()
              .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      Map<String, Map<String, Object>> byName = new TreeMap<>();
      for (Object p : (List<Object>) metadata.get("properties")) {
        Map<String, Object> property = (Map<String, Object>) p;
        byName.put((String) property.get("name"), property);
      }
      return byName;
    }
  }

  @Test
  void metadata_describesEveryPropertyInPlainText() throws Exception {
    Map<String, Map<String, Object>> properties = properties();

    assertThat(properties.keySet())
        .contains(
            "harbinger.mode",
            "harbinger.job-type-header",
            "harbinger.reports-exchange",
            "harbinger.levels",
            "harbinger.key-decay",
            "harbinger.stale-after",
            "harbinger.min-observations",
            "harbinger.max-spread-ratio",
            "harbinger.max-keys",
            "harbinger.size-bins",
            "harbinger.safeguard",
            "harbinger.tail-budget",
            "harbinger.untrusted-last",
            "harbinger.router.kind",
            "harbinger.router.sidecar.address",
            "harbinger.router.sidecar.tls",
            "harbinger.router.sidecar.trust-certificates",
            "harbinger.router.sidecar.token",
            "harbinger.router.sidecar.stale-after");
    properties.forEach(
        (name, p) -> {
          String description = String.valueOf(p.getOrDefault("description", ""));
          assertThat(description).as("description of %s", name).hasSizeGreaterThan(20);
          assertThat(description).as("description of %s", name).doesNotContain("{@");
        });
  }

  @Test
  void metadata_showsEveryDefault() throws Exception {
    Map<String, Map<String, Object>> properties = properties();

    properties.forEach(
        (name, p) -> {
          if (!NO_DEFAULT.contains(name)) {
            assertThat(p).as("default of %s", name).containsKey("defaultValue");
          }
        });
    assertThat(defaultOf(properties, "harbinger.mode")).isEqualTo("predictive");
    assertThat(Double.parseDouble(defaultOf(properties, "harbinger.levels"))).isEqualTo(3);
    assertThat(Double.parseDouble(defaultOf(properties, "harbinger.tail-budget"))).isEqualTo(1.25);
    assertThat(defaultOf(properties, "harbinger.router.sidecar.stale-after")).isEqualTo("60s");
  }

  private static String defaultOf(Map<String, Map<String, Object>> properties, String name) {
    return String.valueOf(properties.get(name).get("defaultValue"));
  }
}
