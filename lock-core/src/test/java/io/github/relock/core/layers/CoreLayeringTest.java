package io.github.relock.core.layers;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * lock-core stands on spring-data-redis and Lettuce alone: it never reaches up into Spring Boot, AOP or SpEL, and its
 * public package shows users no driver type. No class depends on itself through another (a nested class counted with
 * its top-level class).
 *
 * <p>Inside lock-core the packages form layers, top to bottom: the public API {@code io.github.relock.core}, then
 * the internal {@code client}, {@code lock}, {@code wait}, {@code hold}, {@code kind}, {@code command} and
 * {@code redis}, and {@code settings} at the bottom. Only dependencies between lock-core's own classes count. Each
 * internal layer may use the layers below it and the public API (its exceptions, value types and interfaces), never
 * one above it; {@code settings} uses only the public API. The public API may use {@code internal.client} (to build
 * a client) and {@code internal.settings} (to check its values) and no other internal package. Every class of
 * lock-core belongs to one of these layers, and no internal sub-package depends on itself through another.
 */
@Tag("redis-version-independent")
class CoreLayeringTest {

    private static final String CORE_PACKAGE = "io.github.relock.core";

    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.github.relock.core");

    @Test
    void theCoreNeverDependsOnSpringBootAopOrSpel() {
        noClasses().that().resideInAPackage("io.github.relock.core..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "org.springframework.boot..", "org.springframework.aop..", "org.aspectj..",
                        "org.springframework.expression..", "io.github.relock.spring..")
                .check(CORE);
    }

    @Test
    void thePublicApiShowsNoDriverType() {
        noClasses().that().resideInAPackage("io.github.relock.core")
                .should().dependOnClassesThat().resideInAnyPackage("io.lettuce..", "redis.clients..")
                .check(CORE);
    }

    @Test
    void noClassOfTheCoreDependsOnItselfThroughAnother() {
        slices().assignedFrom(coreClassesByTopLevelClass()).should().beFreeOfCycles().check(CORE);
    }

    @Test
    void theInternalPackagesRunOneWayFromTheHandlesDownToRedis() {
        layeredArchitecture().consideringOnlyDependenciesInAnyPackage("io.github.relock.core..")
                .layer("api").definedBy("io.github.relock.core")
                .layer("client").definedBy("io.github.relock.core.internal.client..")
                .layer("lock").definedBy("io.github.relock.core.internal.lock..")
                .layer("wait").definedBy("io.github.relock.core.internal.wait..")
                .layer("hold").definedBy("io.github.relock.core.internal.hold..")
                .layer("kind").definedBy("io.github.relock.core.internal.kind..")
                .layer("command").definedBy("io.github.relock.core.internal.command..")
                .layer("redis").definedBy("io.github.relock.core.internal.redis..")
                .layer("settings").definedBy("io.github.relock.core.internal.settings..")
                .whereLayer("api").mayOnlyAccessLayers("client", "settings")
                .whereLayer("client").mayOnlyAccessLayers(
                        "api", "lock", "wait", "hold", "kind", "command", "redis", "settings")
                .whereLayer("lock").mayOnlyAccessLayers("api", "wait", "hold", "kind", "command", "redis", "settings")
                .whereLayer("wait").mayOnlyAccessLayers("api", "hold", "kind", "command", "redis", "settings")
                .whereLayer("hold").mayOnlyAccessLayers("api", "kind", "command", "redis", "settings")
                .whereLayer("kind").mayOnlyAccessLayers("api", "command", "redis", "settings")
                .whereLayer("command").mayOnlyAccessLayers("api", "redis", "settings")
                .whereLayer("redis").mayOnlyAccessLayers("api", "settings")
                .whereLayer("settings").mayOnlyAccessLayers("api")
                // internal's own package-info, the page that describes these layers, is in none of them
                .ensureAllClassesAreContainedInArchitectureIgnoring(simpleName("package-info"))
                .check(CORE);
    }

    @Test
    void noInternalPackageDependsOnItselfThroughAnother() {
        slices().matching("io.github.relock.core.internal.(*)..").should().beFreeOfCycles().check(CORE);
    }

    /** One slice per top-level class of lock-core; classes outside lock-core belong to none. */
    private static SliceAssignment coreClassesByTopLevelClass() {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String packageName = javaClass.getPackageName();
                boolean inCore = packageName.equals(CORE_PACKAGE) || packageName.startsWith(CORE_PACKAGE + ".");
                return inCore ? SliceIdentifier.of(topLevelName(javaClass)) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "lock-core's classes, one slice per top-level class";
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
