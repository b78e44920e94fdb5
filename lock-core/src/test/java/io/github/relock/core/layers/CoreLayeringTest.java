package io.github.relock.core.layers;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * lock-core stands on spring-data-redis and Lettuce alone: it never reaches up into Spring Boot, AOP or SpEL, and its
 * public package shows users no driver type.
 */
@Tag("redis-version-independent")
class CoreLayeringTest {

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
}
