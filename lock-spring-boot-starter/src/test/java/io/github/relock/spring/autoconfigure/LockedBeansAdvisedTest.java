package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.core.env.MapPropertySource;

import io.github.relock.spring.LockFailureHandler;
import io.github.relock.spring.LockedCounter;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * Every bean with {@code @DistributedLock} methods is advised by relock, or startup fails naming the bean and why;
 * only {@code relock.enabled=false} runs them unlocked, and says so.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class LockedBeansAdvisedTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @Test
    void anAdvisedBeanLocks() {
        runner.withBean("counter", LockedCounter.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(LockedCounter.overlapsOf(context.getBean(LockedCounter.class), 20)).isZero();
        });
    }

    @Test
    void autoProxyingTurnedOffFailsStartup() {
        failsWith(runner.withBean("counter", LockedCounter.class).withPropertyValues("spring.aop.auto=false"),
                analysis -> {
                    assertThat(analysis.getDescription()).contains("'counter'", LockedCounter.class.getName(),
                            "spring.aop.auto=false");
                    assertThat(analysis.getAction()).contains("spring.aop.auto", "relock.enabled=false");
                });
    }

    @Test
    void aBeanMadeForABeanFactoryPostProcessorFailsStartup() {
        failsWith(runner.withUserConfiguration(EarlyCounter.class), analysis -> assertThat(analysis.getDescription())
                .contains("'counter'", "before the post-processors", "BeanFactoryPostProcessor"));
    }

    @Test
    void aRegisteredSingletonFailsStartup() {
        failsWith(runner.withInitializer(context -> context.getBeanFactory().registerSingleton("counter",
                new LockedCounter())), analysis -> assertThat(analysis.getDescription())
                        .contains("'counter'", "registerSingleton"));
    }

    @Test
    void aBeanOfAChildContextWithoutAutoProxyingFailsItsRefresh() {
        runner.run(parent -> {
            assertThat(parent).hasNotFailed();
            AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext();
            child.setParent(parent.getSourceApplicationContext());
            child.registerBean("childCounter", LockedCounter.class);
            assertThatThrownBy(child::refresh).hasMessageContaining("'childCounter'").hasMessageContaining("child context");
        });
    }

    @Test
    void aBeanOfAChildContextWithAutoProxyingLocksWithTheParentsAspect() {
        runner.run(parent -> {
            try (AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext()) {
                child.setParent(parent.getSourceApplicationContext());
                child.register(ChildProxying.class);
                child.registerBean("childCounter", LockedCounter.class);
                child.refresh();
                assertThat(LockedCounter.overlapsOf(child.getBean(LockedCounter.class), 20)).isZero();
            }
        });
    }

    /** The interface declares the lock; the class inherits its implementation from a base that does not. */
    @Test
    void anInterfaceMethodImplementedByABaseClassLocksOrFailsStartup() {
        runner.withBean("inherited", InheritedCounter.class).run(context -> {
            if (context.getStartupFailure() != null) {
                FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
                assertThat(analysis.getDescription()).contains("'inherited'", "pointcut does not match", "count(String)");
                return;
            }
            CountsOnce counter = context.getBean(CountsOnce.class);
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
            try {
                java.util.List<java.util.concurrent.Future<?>> calls = new java.util.ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    calls.add(threads.submit(() -> {
                        for (int i = 0; i < 20; i++) {
                            counter.count("one");
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> call : calls) {
                    call.get(30, java.util.concurrent.TimeUnit.SECONDS);
                }
            }
            finally {
                threads.shutdownNow();
            }
            assertThat(CountingBase.overlaps.get()).as("calls inside at once").isZero();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { "yes", "on", "1", "true ", "", "enabled" })
    void anEnabledValueOtherThanTrueOrFalseFailsStartup(String value) {
        failsWith(runner.withBean("counter", LockedCounter.class).withInitializer(context -> context.getEnvironment()
                .getPropertySources().addFirst(new MapPropertySource("exact", Map.of("relock.enabled", value)))),
                analysis -> {
                    assertThat(analysis.getDescription()).contains("relock.enabled", "'" + value + "'");
                    assertThat(analysis.getAction()).contains("relock.enabled=true", "relock.enabled=false");
                });
    }

    @Test
    void upperCaseTrueAndFalseAreBooleansToo() {
        runner.withBean("counter", LockedCounter.class).withPropertyValues("relock.enabled=TRUE")
                .run(context -> assertThat(LockedCounter.overlapsOf(context.getBean(LockedCounter.class), 5)).isZero());
    }

    @Test
    void disabledRunsUnlockedAndWarnsOnceNamingTheMethods(CapturedOutput output) {
        runner.withBean("counter", LockedCounter.class).withBean("other", Other.class)
                .withPropertyValues("relock.enabled=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    Matcher warnings = Pattern.compile("relock\\.enabled=false").matcher(output.getOut());
                    int count = 0;
                    while (warnings.find()) {
                        count++;
                    }
                    assertThat(count).as("warnings in %s", output.getOut()).isEqualTo(1);
                    assertThat(output.getOut()).contains(LockedCounter.class.getSimpleName() + ".count",
                            Other.class.getSimpleName() + ".work", "WITHOUT");
                });
    }

    @Test
    void twoFailureHandlersFailStartupNamingBoth() {
        failsWith(runner.withBean("counter", LockedCounter.class)
                .withBean("conflictHandler", LockFailureHandler.class, () -> (method, arguments, exception) -> null)
                .withBean("retryHandler", LockFailureHandler.class, () -> (method, arguments, exception) -> null),
                analysis -> {
                    assertThat(analysis.getDescription()).contains("conflictHandler", "retryHandler");
                    assertThat(analysis.getAction()).contains("@Primary");
                });
    }

    @Test
    void aPrimaryFailureHandlerAmongTwoIsFine() {
        runner.withBean("counter", LockedCounter.class)
                .withBean("conflictHandler", LockFailureHandler.class, () -> (method, arguments, exception) -> null,
                        definition -> definition.setPrimary(true))
                .withBean("retryHandler", LockFailureHandler.class, () -> (method, arguments, exception) -> null)
                .run(context -> assertThat(context).hasNotFailed());
    }

    private static void failsWith(ApplicationContextRunner runner, java.util.function.Consumer<FailureAnalysis> expectations) {
        runner.run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
            expectations.accept(analysis);
        });
    }

    public static class Other {

        @io.github.relock.spring.DistributedLock(key = "#id")
        public void work(String id) {
        }
    }

    public interface CountsOnce {

        @io.github.relock.spring.DistributedLock(name = "inherited", key = "#id")
        void count(String id) throws InterruptedException;
    }

    public static class CountingBase {

        static final java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        static final java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();

        public void count(String id) throws InterruptedException {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            Thread.sleep(2);
            inside.decrementAndGet();
        }
    }

    public static class InheritedCounter extends CountingBase implements CountsOnce {
    }

    @Configuration(proxyBeanMethods = false)
    static class EarlyCounter {

        @Bean
        LockedCounter counter() {
            return new LockedCounter();
        }

        /** Takes the counter, so the counter is made while post-processors are still being looked for. */
        @Bean
        static BeanFactoryPostProcessor countingPostProcessor(LockedCounter counter) {
            return beanFactory -> {
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAspectJAutoProxy(proxyTargetClass = true)
    static class ChildProxying {
    }
}
