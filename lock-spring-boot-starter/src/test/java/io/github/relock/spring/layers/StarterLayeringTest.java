package io.github.relock.spring.layers;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import io.github.relock.core.internal.SettingRules;

/**
 * The starter's packages depend one way: auto-configuration, metrics, observation and actuator on the aspect's
 * machinery ({@code internal}) and the extension points, never the other way round; and the starter uses lock-core
 * only through its public API, apart from core's setting rules, which also check the {@code relock.*} properties at
 * startup so that one rule has one home.
 */
class StarterLayeringTest {

    private static final JavaClasses STARTER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.github.relock.spring");

    @Test
    void theStarterUsesOnlyTheCoresPublicApiAndItsSettingRules() {
        noClasses().that().resideInAPackage("io.github.relock.spring..")
                .should().dependOnClassesThat(resideInAPackage("io.github.relock.core.internal..")
                        .and(not(type(SettingRules.class))))
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
}
