package io.harbinger.spring;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HarbingerHealth} as a Spring Boot 4 health indicator: {@code UP} or {@code UNKNOWN}, never
 * {@code DOWN}, with the details. Thread-safe.
 */
final class HarbingerHealthIndicator implements HealthIndicator {

  private final HarbingerHealth health;

  HarbingerHealthIndicator(HarbingerHealth health) {
    this.health = health;
  }

  @Override
  public Health health() {
    HarbingerHealth.Reading r = health.read();
    return (r.up() ? Health.up() : Health.unknown()).withDetails(r.details()).build();
  }
}
