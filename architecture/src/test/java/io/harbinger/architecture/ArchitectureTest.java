package io.harbinger.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.harbinger.predictor.PredictorTuning;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape of the code across modules: the product depends on nothing of the lab's, no module
 * reaches into another's {@code internal} package, the product's packages form no cycle, and the
 * predictor's lab-only tuning hooks ({@link PredictorTuning}) are used by the predictor and the lab
 * alone, so that no product configuration reaches them.
 *
 * <p>Implementation notes: the classes are read from the modules this one depends on (the whole
 * product and the lab), main code only. Each rule is also run on a small fixture that breaks it, so
 * that a rule which could never fail is caught too.
 */
class ArchitectureTest {

  /** The product's packages: what users link or run. */
  static final String[] PRODUCT = {
    "io.harbinger.predictor..",
    "io.harbinger.scheduler..",
    "io.harbinger.proto..",
    "io.harbinger.rabbit..",
    "io.harbinger.sidecar..",
    "io.harbinger.check..",
    "io.harbinger.micrometer..",
    "io.harbinger.spring..",
    "io.harbinger.launcher..",
    "io.harbinger.testing.."
  };

  /** The lab's packages, under experiments/. */
  static final String[] LAB = {
    "io.harbinger.broker..", "io.harbinger.experiments..", "io.harbinger.benchmarks.."
  };

  /** The packages that may use {@link PredictorTuning}: the predictor's own and the lab's. */
  static final String[] TUNING_USERS = {
    "io.harbinger.predictor",
    "io.harbinger.broker..",
    "io.harbinger.experiments..",
    "io.harbinger.benchmarks.."
  };

  private static JavaClasses all;

  @BeforeAll
  static void importClasses() {
    all =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.harbinger");
  }

  @Test
  void classes_comeFromEveryModuleOfTheProductAndTheLab() {
    for (String name :
        List.of(
            "io.harbinger.predictor.HistogramPredictor",
            "io.harbinger.scheduler.LevelScheduler",
            "io.harbinger.rabbit.PredictiveChannels",
            "io.harbinger.sidecar.client.SidecarRouter",
            "io.harbinger.sidecar.Sidecar",
            "io.harbinger.check.CheckCommand",
            "io.harbinger.micrometer.HarbingerClientMetrics",
            "io.harbinger.launcher.Harbinger",
            "io.harbinger.broker.Arms",
            "io.harbinger.experiments.Lab",
            "io.harbinger.benchmarks.PredictorBenchmark")) {
      assertThat(all.contain(name)).as(name).isTrue();
    }
  }

  @Test
  void product_dependsOnNothingOfTheLab() {
    productIndependentOfLab().check(all);
  }

  @Test
  void modules_neverReachIntoAnotherModulesInternalPackage() {
    internalPackagesStayInside().check(all);
  }

  @Test
  void productPackages_formNoCycle() {
    productFreeOfCycles().check(all.that(JavaClass.Predicates.resideInAnyPackage(PRODUCT)));
  }

  @Test
  void predictorTuning_isUsedOnlyByThePredictorAndTheLab() {
    tuningStaysWithThePredictorAndTheLab().check(all);
  }

  @Test
  void rules_failOnCodeThatBreaksThem() {
    JavaClasses fixture =
        new ClassFileImporter().importPackages("io.harbinger.architecture.fixture");
    assertThatThrownBy(() -> internalPackagesStayInside().check(fixture))
        .hasMessageContaining("fixture.intruder.Intruder")
        .hasMessageContaining("fixture.owner.internal.Secret");
    assertThatThrownBy(
            () ->
                slices()
                    .matching("io.harbinger.architecture.fixture.cycle.(**)")
                    .should()
                    .beFreeOfCycles()
                    .check(fixture))
        .hasMessageContaining("Cycle detected");
    assertThatThrownBy(
            () ->
                noClasses()
                    .that()
                    .resideInAPackage("..fixture.intruder..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAPackage("..fixture.owner..")
                    .check(fixture))
        .hasMessageContaining("Intruder");
    assertThatThrownBy(() -> tuningStaysWithThePredictorAndTheLab().check(fixture))
        .hasMessageContaining("fixture.tuned.TunedFromOutside")
        .hasMessageContaining("PredictorTuning");
  }

  private static ArchRule productIndependentOfLab() {
    return noClasses()
        .that()
        .resideInAnyPackage(PRODUCT)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(LAB)
        .because("the lab (experiments/) builds on the product, never the reverse");
  }

  private static ArchRule tuningStaysWithThePredictorAndTheLab() {
    return noClasses()
        .that()
        .resideOutsideOfPackages(TUNING_USERS)
        .should()
        .dependOnClassesThat(JavaClass.Predicates.belongToAnyOf(PredictorTuning.class))
        .because(
            "PredictorTuning holds the lab's research hooks: the product's configuration (the"
                + " sidecar's YAML, the Spring properties, the adapter) exposes PredictorConfig's"
                + " ten settings only");
  }

  private static ArchRule internalPackagesStayInside() {
    return classes()
        .should(onlyUseInternalPackagesOfTheirOwnModule())
        .because(
            "an internal package is its module's implementation: other modules use its public API");
  }

  private static ArchRule productFreeOfCycles() {
    return slices().matching("io.harbinger.(**)").should().beFreeOfCycles();
  }

  /**
   * A class may depend on a package {@code p.internal..} only if it resides in {@code p} or below.
   */
  private static ArchCondition<JavaClass> onlyUseInternalPackagesOfTheirOwnModule() {
    return new ArchCondition<>("use only the internal packages of their own module") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        for (Dependency d : origin.getDirectDependenciesFromSelf()) {
          String target = d.getTargetClass().getPackageName();
          int at = (target + ".").indexOf(".internal.");
          if (at < 0) {
            continue;
          }
          String owner = target.substring(0, at);
          String from = origin.getPackageName();
          if (!(from.equals(owner) || from.startsWith(owner + "."))) {
            events.add(SimpleConditionEvent.violated(d, d.getDescription()));
          }
        }
      }
    };
  }
}
