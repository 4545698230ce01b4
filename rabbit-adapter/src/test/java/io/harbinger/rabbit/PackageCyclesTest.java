package io.harbinger.rabbit;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The adapter's packages, {@code io.harbinger.rabbit} and any sub-package, depend on one another
 * without a cycle: an implementation package may use the public one, never the reverse as well.
 */
class PackageCyclesTest {

  /** One slice per package, so that a cycle between a package and its sub-package is one too. */
  private static final SliceAssignment BY_PACKAGE =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          return SliceIdentifier.of(javaClass.getPackageName());
        }

        @Override
        public String getDescription() {
          return "one slice per package";
        }
      };

  @Test
  void adapterPackages_dependOnEachOther_withoutCycles() {
    JavaClasses adapter =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.harbinger.rabbit");

    slices().assignedFrom(BY_PACKAGE).should().beFreeOfCycles().check(adapter);
  }
}
