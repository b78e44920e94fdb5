package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Publisher;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.test.RedisServerExtension;
import kotlin.coroutines.Continuation;
import reactor.core.publisher.Mono;

/**
 * Mistakes in annotations stop startup, and the failure analysis names the bean, the method and what is
 * wrong; nothing waits for the first call to find out.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @Test
    void malformedKeyExpression() {
        failsWith(BadSpel.class, analysis -> {
            assertThat(analysis.getDescription()).contains("bean 'culprit'", BadSpel.class.getName(), "method ship(String)",
                    "'#id +'", "does not parse");
            assertThat(analysis.getAction()).contains("#p0");
        });
    }

    @Test
    void unknownParameterName() {
        failsWith(UnknownParameter.class, analysis -> assertThat(analysis.getDescription())
                .contains("bean 'culprit'", "method ship(String)", "'#orderId'", "#orderId", "parameters: [id]"));
    }

    @Test
    void argumentIndexOutOfRange() {
        failsWith(IndexOutOfRange.class, analysis -> assertThat(analysis.getDescription()).contains("#p1", "#p0..#p0"));
    }

    @Test
    void privateMethod() {
        failsWith(PrivateMethod.class, analysis -> {
            assertThat(analysis.getDescription()).contains("bean 'culprit'", "method ship(String)", "is private");
            assertThat(analysis.getAction()).contains("public");
        });
    }

    @Test
    void finalMethod() {
        failsWith(FinalMethod.class, analysis -> assertThat(analysis.getDescription()).contains("method ship(String)",
                "is final"));
    }

    @Test
    void finalClass() {
        failsWith(FinalClass.class, analysis -> assertThat(analysis.getDescription()).contains("final class"));
    }

    @Test
    void reactiveReturnTypeOtherThanMonoOrFlux() {
        failsWith(Reactive.class, analysis -> {
            assertThat(analysis.getDescription()).contains("method ship(String)", "org.reactivestreams.Publisher",
                    "released before the work starts");
            assertThat(analysis.getAction()).contains("Mono or Flux", "CompletableFuture");
        });
    }

    @Test
    void reactiveMethodWithSeveralKeys() {
        failsWith(ReactiveMultiKey.class, analysis -> {
            assertThat(analysis.getDescription()).contains("method ship(String, String)", "Mono with 2 keys",
                    "multi-lock has no non-blocking calls");
            assertThat(analysis.getAction()).contains("one key");
        });
    }

    @Test
    void missingFallbackMethod() {
        failsWith(MissingFallback.class, analysis -> {
            assertThat(analysis.getDescription()).contains("method ship(String)", "fallbackMethod 'busy' was not found");
            assertThat(analysis.getAction()).contains("busy(String)", "busy(String, LockNotAcquiredException)");
        });
    }

    @Test
    void fallbackWithAnIncompatibleReturnType() {
        failsWith(WrongFallbackType.class, analysis -> assertThat(analysis.getDescription())
                .contains("fallbackMethod 'busy' returns java.lang.Integer"));
    }

    @Test
    void unparsableDuration() {
        failsWith(BadDuration.class, analysis -> {
            assertThat(analysis.getDescription()).contains("waitTime '2 parsecs'", "is not a duration");
            assertThat(analysis.getAction()).contains("500ms");
        });
    }

    @Test
    void placeholderForAMissingProperty() {
        failsWith(MissingPlaceholder.class, analysis -> {
            assertThat(analysis.getDescription()).contains("leaseTime '${orders.lease}'");
            assertThat(analysis.getAction()).contains("${name:2s}");
        });
    }

    @Test
    void negativeWaitTime() {
        failsWith(NegativeWait.class, analysis -> assertThat(analysis.getDescription()).contains("waitTime '-1s' is negative"));
    }

    @Test
    void bothKeyAndKeys() {
        failsWith(KeyAndKeys.class, analysis -> assertThat(analysis.getDescription()).contains("both key and keys"));
    }

    /** {@code name:key} must be unambiguous: name "acct" with key "audit:7" and "acct:audit" with "7" would meet. */
    @Test
    void aNameWithTheKeySeparator() {
        failsWith(ColonInName.class, analysis -> {
            assertThat(analysis.getDescription()).contains("method ship(String)", "name 'acct:audit'", "':'");
            assertThat(analysis.getAction()).contains("acct.audit");
        });
    }

    /** Supported (CoroutineLockTest), but not without the library Spring calls it through. */
    @Test
    void aKotlinSuspendFunctionWithoutKotlinxCoroutinesReactor() {
        runner.withClassLoader(new FilteredClassLoader("kotlinx.coroutines.reactor")).withBean("culprit", Suspending.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("method ship(String, Continuation)",
                            "suspend function", "org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
                    assertThat(analysis.getAction()).contains("Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
                });
    }

    @Test
    void aLazyStreamReturn() {
        failsWith(StreamReturn.class, analysis -> {
            assertThat(analysis.getDescription()).contains("method ship(String)", "java.util.stream.Stream",
                    "after the lock was released");
            assertThat(analysis.getAction()).contains("Collect the result inside the method");
        });
    }

    @Test
    void aLazyIteratorReturn() {
        failsWith(IteratorReturn.class, analysis -> assertThat(analysis.getDescription())
                .contains("method ship(String)", "java.util.Iterator", "after the lock was released"));
    }

    @Test
    void aPrimitiveStreamOrSpliteratorReturn() {
        failsWith(IntStreamReturn.class, analysis -> assertThat(analysis.getDescription())
                .contains("java.util.stream.IntStream"));
        failsWith(SpliteratorReturn.class, analysis -> assertThat(analysis.getDescription())
                .contains("java.util.Spliterator"));
    }

    @Test
    void aListReturnIsFine() {
        runner.withBean("fine", ListReturn.class).run(context -> assertThat(context).hasNotFailed());
    }

    /** A lambda's class is hidden: its name holds an address that differs in every JVM. */
    @Test
    void aDefaultLockNameFromALambdaBean() {
        runner.withBean("culprit", Shipper.class, () -> id -> "shipped " + id).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
            assertThat(analysis.getDescription()).contains("bean 'culprit'", "method ship(String)", "hidden",
                    "no two JVMs");
            assertThat(analysis.getAction()).contains("name = ");
        });
    }

    @Test
    void aNamedLockOnALambdaBeanIsFine() {
        runner.withBean("fine", NamedShipper.class, () -> id -> "shipped " + id)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void unusedPerNameSettingsAreReportedAsLikelyTypos(CapturedOutput output) {
        runner.withBean("fine", Fine.class)
                .withPropertyValues("relock.locks.payments.wait-time=1s", "relock.locks.paymnets.wait-time=1s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("relock.locks.paymnets is configured, but no @DistributedLock method uses")
                            .doesNotContain("relock.locks.payments is configured");
                });
    }

    private void failsWith(Class<?> culprit, Consumer<FailureAnalysis> expectations) {
        runner.withBean("culprit", culprit).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
            expectations.accept(analysis);
        });
    }

    public static class Fine {

        @DistributedLock(name = "payments", key = "#id")
        public void pay(String id) {
        }
    }

    public static class BadSpel {

        @DistributedLock(key = "#id +")
        public void ship(String id) {
        }
    }

    public static class UnknownParameter {

        @DistributedLock(key = "#orderId")
        public void ship(String id) {
        }
    }

    public static class IndexOutOfRange {

        @DistributedLock(key = "#p1")
        public void ship(String id) {
        }
    }

    public static class PrivateMethod {

        public void run() {
            ship("x");
        }

        @DistributedLock(key = "#id")
        private void ship(String id) {
        }
    }

    public static class FinalMethod {

        @DistributedLock(key = "#id")
        public final void ship(String id) {
        }
    }

    public static final class FinalClass {

        @DistributedLock(key = "#id")
        public void ship(String id) {
        }
    }

    public static class Reactive {

        @DistributedLock(key = "#id")
        public Publisher<String> ship(String id) {
            return Mono.just(id);
        }
    }

    public static class ReactiveMultiKey {

        @DistributedLock(keys = { "#a", "#b" })
        public Mono<String> ship(String a, String b) {
            return Mono.just(a + b);
        }
    }

    public static class MissingFallback {

        @DistributedLock(key = "#id", fallbackMethod = "busy")
        public String ship(String id) {
            return id;
        }
    }

    public static class WrongFallbackType {

        @DistributedLock(key = "#id", fallbackMethod = "busy")
        public String ship(String id) {
            return id;
        }

        public Integer busy(String id) {
            return 0;
        }
    }

    public static class BadDuration {

        @DistributedLock(key = "#id", waitTime = "2 parsecs")
        public void ship(String id) {
        }
    }

    public static class MissingPlaceholder {

        @DistributedLock(key = "#id", leaseTime = "${orders.lease}")
        public void ship(String id) {
        }
    }

    public static class NegativeWait {

        @DistributedLock(key = "#id", waitTime = "-1s")
        public void ship(String id) {
        }
    }

    public static class ColonInName {

        @DistributedLock(name = "acct:audit", key = "#id")
        public void ship(String id) {
        }
    }

    /** What the Kotlin compiler makes of {@code suspend fun ship(id: String): String}. */
    public static class Suspending {

        @DistributedLock(key = "#id")
        public Object ship(String id, Continuation<? super String> continuation) {
            return id;
        }
    }

    public static class StreamReturn {

        @DistributedLock(key = "#id")
        public java.util.stream.Stream<String> ship(String id) {
            return java.util.stream.Stream.of(id);
        }
    }

    public static class IteratorReturn {

        @DistributedLock(key = "#id")
        public java.util.Iterator<String> ship(String id) {
            return java.util.List.of(id).iterator();
        }
    }

    public static class IntStreamReturn {

        @DistributedLock(key = "#id")
        public java.util.stream.IntStream ship(String id) {
            return java.util.stream.IntStream.of(1);
        }
    }

    public static class SpliteratorReturn {

        @DistributedLock(key = "#id")
        public java.util.Spliterator<String> ship(String id) {
            return java.util.List.of(id).spliterator();
        }
    }

    public static class ListReturn {

        @DistributedLock(key = "#id")
        public java.util.List<String> ship(String id) {
            return java.util.List.of(id);
        }
    }

    public interface Shipper {

        @DistributedLock(key = "#p0") // a lambda's parameters have no names at runtime
        String ship(String id);
    }

    public interface NamedShipper {

        @DistributedLock(name = "shipping", key = "#p0")
        String ship(String id);
    }

    public static class KeyAndKeys {

        @DistributedLock(key = "#id", keys = { "#id" })
        public void ship(String id) {
        }
    }
}
