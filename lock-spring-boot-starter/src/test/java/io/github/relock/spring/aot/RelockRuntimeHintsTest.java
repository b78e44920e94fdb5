package io.github.relock.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.aot.hint.predicate.RuntimeHintsPredicates.reflection;
import static org.springframework.aot.hint.predicate.RuntimeHintsPredicates.resource;

import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.internal.LockKeyRootObject;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.spring.autoconfigure.RelockProperties;

/**
 * The hints an AOT build of an application gets from relock. The context is processed the way
 * {@code spring-boot-maven-plugin:process-aot} does it, so a registrar missing from
 * {@code META-INF/spring/aot.factories}, or {@code @Reflective} missing from {@link DistributedLock}, fails
 * here as surely as a hint removed from the registrar.
 */
class RelockRuntimeHintsTest {

    static RuntimeHints hints;

    @BeforeAll
    static void processAheadOfTime() {
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get("com.example", "App")), new InMemoryGeneratedFiles());
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.registerBean(Payments.class);
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        }
        hints = generation.getRuntimeHints();
    }

    @Test
    void everyLuaScriptOfTheCoreIsAResource() throws IOException {
        // every script on the class path, wherever it lives under io/github/relock: a moved one fails too
        Resource[] scripts = new PathMatchingResourcePatternResolver().getResources("classpath*:io/github/relock/**/*.lua");
        assertThat(scripts).as("lock-core's scripts on the class path").hasSizeGreaterThanOrEqualTo(10);
        for (Resource script : scripts) {
            String url = script.getURL().toString();
            String path = url.substring(url.lastIndexOf("io/github/relock/"));
            assertThat(resource().forResource(path)).as(path).accepts(hints);
        }
    }

    @Test
    void keyExpressionsReachTheRootObject() throws NoSuchMethodException {
        for (String getter : new String[] {"getMethod", "getMethodName", "getArgs", "getTarget", "getTargetClass"}) {
            assertThat(reflection().onMethodInvocation(LockKeyRootObject.class.getMethod(getter))).as(getter)
                    .accepts(hints);
        }
    }

    @Test
    void theAnnotationThePropertiesAndTheFailureAnalyzerAreReachable() throws NoSuchMethodException {
        for (Method attribute : DistributedLock.class.getDeclaredMethods()) {
            assertThat(reflection().onMethodInvocation(attribute)).as(attribute.getName()).accepts(hints);
        }
        assertThat(reflection().onMethodInvocation(RelockProperties.class.getMethod("setWaitTime", Duration.class)))
                .accepts(hints);
        assertThat(reflection().onType(RelockProperties.Lock.class)).accepts(hints);
        assertThat(reflection().onConstructorInvocation(RelockFailureAnalyzer.class.getConstructor())).accepts(hints);
    }

    @Test
    void aLockedMethodItsFallbackAndItsKeyArgumentsAreInvocable() throws NoSuchMethodException {
        assertThat(reflection().onMethodInvocation(Payments.class.getMethod("pay", Order.class))).accepts(hints);
        Method fallback = Arrays.stream(Payments.class.getDeclaredMethods())
                .filter(method -> method.getName().equals("payLater")).findFirst().orElseThrow();
        assertThat(reflection().onMethodInvocation(fallback)).accepts(hints);
        assertThat(reflection().onMethodInvocation(Order.class.getMethod("id"))).as("#order.id").accepts(hints);
        // a method without the annotation gets nothing: the hints follow @DistributedLock, not the bean
        assertThat(reflection().onMethodInvocation(Payments.class.getMethod("unlocked"))).rejects(hints);
    }

    /** A key argument, read by {@code #order.id}. */
    public record Order(long id) {
    }

    /** A bean with a locked method and its fallback. */
    public static class Payments {

        @DistributedLock(key = "#order.id", fallbackMethod = "payLater")
        public String pay(Order order) {
            return "paid " + order.id();
        }

        String payLater(Order order, LockNotAcquiredException busy) {
            return "later " + order.id();
        }

        public String unlocked() {
            return "no lock";
        }
    }
}
