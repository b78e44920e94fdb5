package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockNames;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import reactor.core.publisher.Mono;

/**
 * The lock client closes after the locked work the application's executors still run has released its locks; a
 * locked call still running when the client must close is told so.
 */
@Timeout(60)
class ShutdownOrderTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis)
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
            .withUserConfiguration(AsyncOn.class).withBean("reports", Reports.class)
            .withPropertyValues("spring.task.execution.shutdown.await-termination=true",
                    "spring.task.execution.shutdown.await-termination-period=20s");

    @Test
    void anAsyncLockedCallTheExecutorWaitsForFinishesUnderItsLockAndReleasesIt() throws Exception {
        AtomicReference<CompletableFuture<String>> result = new AtomicReference<>();
        String[] lockKey = new String[1];
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);
            lockKey[0] = RelockContexts.redisKeys(context, LockNames.of("reports", "daily")).lock();
            result.set(reports.build("daily", 1_500));
            assertThat(reports.awaitStarted()).isTrue();
        }); // closed here, while the report is still being built
        assertThat(result.get().get(10, TimeUnit.SECONDS)).isEqualTo("daily");
        // the release follows the future's completion by a round trip; a lock left to its lease would stay 30 s
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(redis.commands().exists(lockKey[0])).as("released, not left to its lease").isZero());
    }

    @Test
    void aLockedCallStillRunningWhenTheClientClosesEndsWithLockLostException() throws Exception {
        AtomicReference<CompletableFuture<String>> result = new AtomicReference<>();
        runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=300ms").run(context -> {
            Reports reports = context.getBean(Reports.class);
            result.set(reports.build("weekly", 2_000));
            assertThat(reports.awaitStarted()).isTrue();
        });
        ExecutionException failure = null;
        try {
            result.get().get(10, TimeUnit.SECONDS);
        }
        catch (ExecutionException ex) {
            failure = ex;
        }
        assertThat(failure).as("the call returned as if it had held its lock throughout").isNotNull();
        assertThat(failure.getCause()).isInstanceOf(LockLostException.class).hasMessageContaining("closed");
    }

    @Test
    void aReactiveLockedCallStillRunningWhenTheClientClosesEndsWithLockLostException() throws Exception {
        AtomicReference<CompletableFuture<String>> result = new AtomicReference<>();
        runner.withBean("feeds", Feeds.class).withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=300ms")
                .run(context -> {
                    Feeds feeds = context.getBean(Feeds.class);
                    result.set(feeds.refresh("news", 2_000).toFuture());
                    assertThat(feeds.awaitStarted()).isTrue();
                });
        ExecutionException failure = null;
        try {
            result.get().get(10, TimeUnit.SECONDS);
        }
        catch (ExecutionException ex) {
            failure = ex;
        }
        assertThat(failure).as("the publisher completed as if it had held its lock throughout").isNotNull();
        assertThat(failure.getCause()).isInstanceOf(LockLostException.class).hasMessageContaining("closed");
    }

    public static class Feeds {

        private final CountDownLatch started = new CountDownLatch(1);

        public boolean awaitStarted() throws InterruptedException {
            return started.await(5, TimeUnit.SECONDS);
        }

        @DistributedLock(name = "feeds", key = "#feed")
        public Mono<String> refresh(String feed, long millis) {
            return Mono.delay(Duration.ofMillis(millis)).doOnSubscribe(subscription -> started.countDown())
                    .thenReturn(feed);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncOn {
    }

    public static class Reports {

        private final CountDownLatch started = new CountDownLatch(1);

        public boolean awaitStarted() throws InterruptedException {
            return started.await(5, TimeUnit.SECONDS);
        }

        @Async
        @DistributedLock(name = "reports", key = "#day")
        public CompletableFuture<String> build(String day, long millis) throws InterruptedException {
            started.countDown();
            Thread.sleep(millis);
            return CompletableFuture.completedFuture(day);
        }
    }
}
