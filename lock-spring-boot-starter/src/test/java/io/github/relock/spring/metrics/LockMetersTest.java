package io.github.relock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.LockLostException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;

/**
 * The dashboard meters on a real Redis: held and waiting gauges go up and back to 0 whichever way a call
 * ends, the not-acquired and lost counters count, and every tag is the lock name, never the key.
 */
@Timeout(60)
class LockMetersTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisLockClient elsewhere;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ApplicationContextRunner runner = RelockContexts.on(redis)
            .withConfiguration(AutoConfigurations.of(RelockMetricsAutoConfiguration.class))
            .withBean(Payments.class).withBean(MeterRegistry.class, () -> registry)
            .withPropertyValues("relock.wait-time=5s", "relock.watchdog-timeout=1s");

    @BeforeAll
    static void startOtherInstance() {
        elsewhere = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterAll
    static void stopOtherInstance() {
        elsewhere.close();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void aHeldCallCountsWhileItRunsAndNotAfter() {
        runner.run(context -> {
            Payments payments = context.getBean(Payments.class);
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<?> call = threads.submit(() -> payments.hold("secret-1", entered, release));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(gauge("relock.calls.holding", "payments")).isEqualTo(1);
            assertThat(gauge("relock.calls.waiting", "payments")).isZero();
            release.countDown();
            call.get(10, TimeUnit.SECONDS);
            assertThat(gauge("relock.calls.holding", "payments")).isZero();
            assertThat(counter("relock.lock.not.acquired", "payments")).isZero();
            assertThat(counter("relock.lock.lost", "payments")).isZero();
            assertNoTagCarriesAKey();
        });
    }

    @Test
    void aSecondCallerCountsAsWaitingUntilItGetsTheLock() {
        runner.run(context -> {
            Payments payments = context.getBean(Payments.class);
            CountDownLatch firstIn = new CountDownLatch(1);
            CountDownLatch firstOut = new CountDownLatch(1);
            CountDownLatch secondIn = new CountDownLatch(1);
            CountDownLatch secondOut = new CountDownLatch(1);
            Future<?> first = threads.submit(() -> payments.hold("secret-2", firstIn, firstOut));
            assertThat(firstIn.await(10, TimeUnit.SECONDS)).isTrue();
            Future<?> second = threads.submit(() -> payments.hold("secret-2", secondIn, secondOut));
            await(() -> gauge("relock.calls.waiting", "payments") == 1);
            assertThat(gauge("relock.calls.holding", "payments")).isEqualTo(1);

            firstOut.countDown();
            assertThat(secondIn.await(10, TimeUnit.SECONDS)).isTrue();
            first.get(10, TimeUnit.SECONDS);
            assertThat(gauge("relock.calls.waiting", "payments")).isZero();
            assertThat(gauge("relock.calls.holding", "payments")).isEqualTo(1);
            secondOut.countDown();
            second.get(10, TimeUnit.SECONDS);
            assertThat(gauge("relock.calls.holding", "payments")).isZero();
        });
    }

    @Test
    void aCallWhoseWaitRunsOutIsCountedAndStopsWaiting() throws Exception {
        ReentrantDistributedLock busy = elsewhere.getLock("payments:secret-3");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.run(context -> {
                Payments payments = context.getBean(Payments.class);
                assertThatThrownBy(() -> payments.now("secret-3")).isInstanceOf(LockNotAcquiredException.class);
                assertThat(counter("relock.lock.not.acquired", "payments")).isEqualTo(1);

                Future<?> waiting = threads.submit(() -> payments.briefly("secret-3"));
                await(() -> gauge("relock.calls.waiting", "payments") == 1);
                assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(LockNotAcquiredException.class);
                assertThat(gauge("relock.calls.waiting", "payments")).isZero();
                assertThat(gauge("relock.calls.holding", "payments")).isZero();
                assertThat(counter("relock.lock.not.acquired", "payments")).isEqualTo(2);
                assertNoTagCarriesAKey();
            });
        }
        finally {
            busy.unlock();
        }
    }

    @Test
    void anInterruptedWaitStopsWaiting() {
        runner.run(context -> {
            Payments payments = context.getBean(Payments.class);
            CountDownLatch firstIn = new CountDownLatch(1);
            CountDownLatch firstOut = new CountDownLatch(1);
            Future<?> first = threads.submit(() -> payments.hold("secret-9", firstIn, firstOut));
            assertThat(firstIn.await(10, TimeUnit.SECONDS)).isTrue();
            Future<?> second = threads.submit(() -> payments.hold("secret-9", new CountDownLatch(1), firstOut));
            await(() -> gauge("relock.calls.waiting", "payments") == 1);
            second.cancel(true);
            await(() -> gauge("relock.calls.waiting", "payments") == 0);
            assertThat(counter("relock.lock.not.acquired", "payments")).as("an interrupt is no timeout").isZero();
            firstOut.countDown();
            first.get(10, TimeUnit.SECONDS);
            assertThat(gauge("relock.calls.holding", "payments")).isZero();
        });
    }

    @Test
    void aMethodThatThrowsStopsCountingAsHeld() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.getBean(Payments.class).fail("secret-4")).hasMessage("broken");
            assertThat(gauge("relock.calls.holding", "payments")).isZero();
            assertThat(gauge("relock.calls.waiting", "payments")).isZero();
        });
    }

    @Test
    void aLockLostWhileHeldIsCountedUnderItsName() {
        runner.run(context -> {
            Payments payments = context.getBean(Payments.class);
            String key = RelockContexts.redisKeys(context, "reports:secret-5").lock();
            RedisLockClient client = context.getBean(RedisLockClient.class);
            assertThatThrownBy(() -> payments.loseTheLock("secret-5", key, client)).isInstanceOf(LockLostException.class);
            assertThat(counter("relock.lock.lost", "reports")).isEqualTo(1);
            assertThat(gauge("relock.calls.holding", "reports")).isZero();
            assertThat(registry.find("relock.lock.lost").tag("relock.lock.name", "_other").counter()).isNull();
            assertNoTagCarriesAKey();
        });
    }

    @Test
    void anAsynchronousCallCountsAsHeldUntilItsFutureCompletes() {
        runner.run(context -> {
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Payments.class).later("secret-6", work);
            assertThat(gauge("relock.calls.holding", "jobs")).isEqualTo(1);
            work.complete("done");
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(gauge("relock.calls.holding", "jobs")).isZero();
        });
    }

    @Test
    void observationsAreStillRecordedBesideTheMeters() {
        TestObservationRegistry observations = TestObservationRegistry.create();
        runner.withBean(TestObservationRegistry.class, () -> observations).run(context -> {
            context.getBean(Payments.class).now("secret-7");
            TestObservationRegistryAssert.assertThat(observations).hasObservationWithNameEqualTo("relock.lock.hold");
            assertThat(registry.find("relock.calls.holding").tag("relock.lock.name", "payments").gauge()).isNotNull();
        });
    }

    @Test
    void closingTheContextRemovesTheMeters() {
        runner.run(context -> context.getBean(Payments.class).now("secret-8"));
        assertThat(registry.find("relock.calls.holding").meters()).isEmpty();
        assertThat(registry.find("relock.lock.lost").meters()).isEmpty();
    }

    @Test
    void twoContextsOnOneRegistryAddUpAndKeepEachOthersMetersUntilBothClose() {
        runner.run(first -> runner.run(second -> {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch firstIn = new CountDownLatch(1);
            CountDownLatch secondIn = new CountDownLatch(1);
            Future<?> inFirst = threads.submit(() -> first.getBean(Payments.class).hold("secret-10", firstIn, release));
            Future<?> inSecond = threads.submit(() -> second.getBean(Payments.class).hold("secret-11", secondIn, release));
            assertThat(firstIn.await(10, TimeUnit.SECONDS) && secondIn.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(gauge("relock.calls.holding", "payments")).as("one call held in each context").isEqualTo(2);
            release.countDown();
            inFirst.get(10, TimeUnit.SECONDS);
            inSecond.get(10, TimeUnit.SECONDS);

            first.close();
            CountDownLatch stillIn = new CountDownLatch(1);
            CountDownLatch stillOut = new CountDownLatch(1);
            Future<?> later = threads.submit(() -> second.getBean(Payments.class).hold("secret-12", stillIn, stillOut));
            assertThat(stillIn.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(gauge("relock.calls.holding", "payments")).as("the open context still reports").isEqualTo(1);
            stillOut.countDown();
            later.get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> second.getBean(Payments.class).fail("secret-13")).hasMessage("broken");
            assertThat(registry.find("relock.lock.not.acquired").tag("relock.lock.name", "payments").counter())
                    .isNotNull();
        }));
        assertThat(registry.getMeters()).as("the last context to close removes them").isEmpty();
    }

    @Test
    void aLockLostOutsideAnyAnnotatedNameAddsOnlyTheLostCounter() {
        runner.run(context -> {
            RedisLockClient client = context.getBean(RedisLockClient.class);
            ReentrantDistributedLock lock = client.getLock("taken-in-code:secret-14");
            lock.lock();
            redis.commands().del(RelockContexts.redisKeys(context, "taken-in-code:secret-14").lock());
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> client.heldLocks().isEmpty());
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
            assertThat(counter("relock.lock.lost", "_other")).isEqualTo(1);
            assertThat(registry.find("relock.calls.holding").tag("relock.lock.name", "_other").meters()).isEmpty();
            assertThat(registry.find("relock.calls.waiting").tag("relock.lock.name", "_other").meters()).isEmpty();
            assertThat(registry.find("relock.lock.not.acquired").tag("relock.lock.name", "_other").meters())
                    .isEmpty();
        });
    }

    @Test
    void noMeterRegistryOrNoMicrometerMeansNoMeters() {
        RelockContexts.on(redis).withConfiguration(AutoConfigurations.of(RelockMetricsAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(MeterLockObserver.class));
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(MeterLockObserver.class));
    }

    private double gauge(String name, String lockName) {
        return registry.get(name).tag("relock.lock.name", lockName).gauge().value();
    }

    private double counter(String name, String lockName) {
        return registry.get(name).tag("relock.lock.name", lockName).counter().count();
    }

    private void assertNoTagCarriesAKey() {
        for (Meter meter : registry.getMeters()) {
            assertThat(meter.getId().getTags()).noneMatch(tag -> tag.getValue().contains("secret"));
        }
    }

    private static void await(Callable<Boolean> condition) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(condition);
    }

    public static class Payments {

        @DistributedLock(name = "payments", key = "#id")
        public void hold(String id, CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        @DistributedLock(name = "payments", key = "#id", waitTime = "0s")
        public void now(String id) {
        }

        @DistributedLock(name = "payments", key = "#id", waitTime = "300ms")
        public void briefly(String id) {
        }

        @DistributedLock(name = "payments", key = "#id")
        public void fail(String id) {
            throw new IllegalStateException("broken");
        }

        /** Deletes its own lock in Redis; the watchdog's next renewal finds it gone. */
        @DistributedLock(name = "reports", key = "#id")
        public void loseTheLock(String id, String key, RedisLockClient client) {
            redis.commands().del(key);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> client.heldLocks().isEmpty());
        }

        @DistributedLock(name = "jobs", key = "#id")
        public CompletableFuture<String> later(String id, CompletableFuture<String> work) {
            return work;
        }
    }
}
