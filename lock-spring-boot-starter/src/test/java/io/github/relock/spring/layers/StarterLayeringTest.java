package io.github.relock.spring.layers;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import java.util.function.Function;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The starter's packages depend one way, each only on those below it:
 * <ol>
 * <li>{@code aot}, {@code actuate}, {@code metrics}: optional integrations, each configured after the main
 * auto-configuration;</li>
 * <li>{@code autoconfigure}: the auto-configuration and the {@code relock.*} properties;</li>
 * <li>{@code observation}: the Micrometer Observation plug-in of the observer SPI;</li>
 * <li>{@code internal}: the aspect's machinery;</li>
 * <li>{@code io.github.relock.spring}: the public API (annotation, exceptions, extension points,
 * {@code CurrentLock});</li>
 * <li>{@code internal.held}: the locks that running calls hold, which the aspect records and {@code CurrentLock}
 * reads.</li>
 * </ol>
 * {@code jdbc} stands alone. Metrics and observation plug in through the observer SPI alone, never through the
 * aspect. There are no cycles between packages, nor between classes (a nested class counted with its top-level
 * class). The starter uses lock-core only through its public API, apart from core's setting rules, which also check
 * the {@code relock.*} properties at startup so that one rule has one home.
 */
class StarterLayeringTest {

    private static final String STARTER_PACKAGE = "io.github.relock.spring";

    private static final JavaClasses STARTER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(STARTER_PACKAGE);

    @Test
    void theStarterUsesOnlyTheCoresPublicApiAndItsSettingRules() {
        noClasses().that().resideInAPackage("io.github.relock.spring..")
                .should().dependOnClassesThat(resideInAPackage("io.github.relock.core.internal..")
                        .and(not(name("io.github.relock.core.internal.settings.SettingRules"))))
                .check(STARTER);
    }

    @Test
    void theAspectNeverReachesUpIntoConfigurationOrItsPlugIns() {
        noClasses().that().resideInAPackage("io.github.relock.spring.internal..")
                .should().dependOnClassesThat().resideInAnyPackage("io.github.relock.spring.autoconfigure..",
                        "io.github.relock.spring.metrics..", "io.github.relock.spring.observation..",
                        "io.github.relock.spring.actuate..")
                .check(STARTER);
    }

    @Test
    void metricsAndObservationPlugInThroughTheObserverSpiAlone() {
        noClasses().that().resideInAnyPackage("io.github.relock.spring.metrics..", "io.github.relock.spring.observation..")
                .should().dependOnClassesThat().resideInAPackage("io.github.relock.spring.internal..")
                .check(STARTER);
    }

    @Test
    void theStartersSubPackagesHaveNoCycles() {
        slices().matching("io.github.relock.spring.(*)..").should().beFreeOfCycles().check(STARTER);
    }

    @Test
    void noPackageOfTheStarterDependsOnItselfThroughAnother() {
        slices().assignedFrom(starterSlices("package", JavaClass::getPackageName))
                .should().beFreeOfCycles().check(STARTER);
    }

    @Test
    void noClassOfTheStarterDependsOnItselfThroughAnother() {
        slices().assignedFrom(starterSlices("top-level class", StarterLayeringTest::topLevelName))
                .should().beFreeOfCycles().check(STARTER);
    }

    @Test
    void thePackagesDependOneWayFromIntegrationsDownToTheHeldLocks() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Integrations").definedBy("io.github.relock.spring.aot..", "io.github.relock.spring.actuate..",
                        "io.github.relock.spring.metrics..")
                .layer("Configuration").definedBy("io.github.relock.spring.autoconfigure..")
                .layer("Observation").definedBy("io.github.relock.spring.observation..")
                .layer("Aspect").definedBy("io.github.relock.spring.internal")
                .layer("Api").definedBy(STARTER_PACKAGE)
                .layer("Held").definedBy("io.github.relock.spring.internal.held..")
                .layer("Jdbc").definedBy("io.github.relock.spring.jdbc..")
                .whereLayer("Integrations").mayNotBeAccessedByAnyLayer()
                .whereLayer("Configuration").mayOnlyBeAccessedByLayers("Integrations")
                .whereLayer("Observation").mayOnlyBeAccessedByLayers("Configuration")
                .whereLayer("Observation").mayOnlyAccessLayers("Api")
                .whereLayer("Aspect").mayOnlyBeAccessedByLayers("Integrations", "Configuration")
                .whereLayer("Aspect").mayOnlyAccessLayers("Api", "Held")
                .whereLayer("Api").mayOnlyBeAccessedByLayers("Integrations", "Configuration", "Observation", "Aspect")
                .whereLayer("Api").mayOnlyAccessLayers("Held")
                .whereLayer("Held").mayOnlyBeAccessedByLayers("Aspect", "Api")
                .whereLayer("Held").mayNotAccessAnyLayer()
                .whereLayer("Jdbc").mayNotBeAccessedByAnyLayer()
                .whereLayer("Jdbc").mayNotAccessAnyLayer()
                .check(STARTER);
    }

    /** One slice per {@code what} of each starter class; classes outside the starter belong to none. */
    private static SliceAssignment starterSlices(String what, Function<JavaClass, String> key) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                return javaClass.getPackageName().equals(STARTER_PACKAGE)
                        || javaClass.getPackageName().startsWith(STARTER_PACKAGE + ".")
                        ? SliceIdentifier.of(key.apply(javaClass)) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the starter's classes, one slice per " + what;
            }
        };
    }

    /** {@code a.b.Outer} for {@code a.b.Outer$Inner}, {@code a.b.Outer$1} and {@code a.b.Outer} itself. */
    private static String topLevelName(JavaClass javaClass) {
        String name = javaClass.getName();
        int nested = name.indexOf('$', javaClass.getPackageName().length() + 1);
        return nested < 0 ? name : name.substring(0, nested);
    }
}
