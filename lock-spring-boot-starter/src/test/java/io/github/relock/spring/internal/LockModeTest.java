package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import io.github.relock.core.LockKindMismatchException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockMode;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.test.RedisServerExtension;

/**
 * {@code mode = READ / WRITE}: read calls run together, a write call alone; {@code fair = true} and
 * {@code relock.locks.<name>.fair}: a fair lock; and mixing kinds on one name stops startup.
 */
@Timeout(60)
class LockModeTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Docs.class);

    @Test
    void readCallsRunTogetherAndAWriteCallRunsAlone() {
        runner.run(context -> {
            Docs docs = context.getBean(Docs.class);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                docs.expectReaders(4);
                Future<?>[] readers = new Future<?>[4];
                for (int i = 0; i < 4; i++) {
                    readers[i] = pool.submit(() -> {
                        docs.read("7");
                        return null;
                    });
                }
                for (Future<?> reader : readers) {
                    reader.get(10, TimeUnit.SECONDS); // each waits until all four are inside at once
                }
                assertThat(docs.mostReaders()).isEqualTo(4);

                CountDownLatch writing = new CountDownLatch(1);
                CountDownLatch finish = new CountDownLatch(1);
                Future<?> writer = pool.submit(() -> {
                    docs.write("7", writing, finish);
                    return null;
                });
                assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> pool.submit(() -> docs.readOnce("7")).get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(LockNotAcquiredException.class);
                finish.countDown();
                writer.get(10, TimeUnit.SECONDS);
                assertThat(pool.submit(() -> docs.readOnce("7")).get(10, TimeUnit.SECONDS)).isEqualTo("7");
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void aWriteCallMayReadInsideButAReadCallMayNotWriteInside() {
        runner.run(context -> {
            Docs docs = context.getBean(Docs.class);
            assertThat(docs.writeThenRead("8")).isEqualTo("8");
            assertThatThrownBy(() -> docs.readThenWrite("8")).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("holds the read lock");
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void oneNameWithExclusiveAndReadModesStopsStartupNamingBothMethods() {
        RelockContexts.on(redis).withBean("culprit", Mixed.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("'shared'", "Mixed.exclusive", "Mixed.read", "EXCLUSIVE",
                    "READ");
        });
    }

    @Test
    void aReadWriteModeWithSeveralKeysStopsStartup() {
        RelockContexts.on(redis).withBean("culprit", SeveralKeys.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("mode WRITE", "2 keys");
        });
    }

    @Test
    void fairTrueAndTheFairPropertyTakeTheFairLock() {
        runner.withBean(Reports.class).withPropertyValues("relock.locks.configured.fair=true").run(context -> {
            Reports reports = context.getBean(Reports.class);
            RedisLockClient client = context.getBean(RedisLockClient.class);
            String fairKey = client.getFairLock(io.github.relock.core.LockNames.of("reports", "day-1")).getKey();
            assertThat(reports.annotated("day-1", () -> redis.commands().exists(fairKey))).isEqualTo(1L);
            String configuredKey = client.getFairLock(io.github.relock.core.LockNames.of("configured", "day-1"))
                    .getKey();
            assertThat(reports.configured("day-1", () -> redis.commands().exists(configuredKey))).isEqualTo(1L);
        });
    }

    /** A configuration change rolling out: one instance already takes the lock as fair, another still as plain. */
    @Test
    void instancesThatDisagreeOnFairDoNotBothGetIn() {
        runner.withBean(Reports.class).run(plainInstance -> runner.withBean(Reports.class)
                .withPropertyValues("relock.locks.configured.fair=true").run(fairInstance -> {
                    Reports plain = plainInstance.getBean(Reports.class);
                    Reports fair = fairInstance.getBean(Reports.class);
                    assertThatThrownBy(() -> plain.configured("day-2", () -> fair.configured("day-2", () -> "both in")))
                            .isInstanceOf(LockKindMismatchException.class);
                    assertThatThrownBy(() -> fair.configured("day-3", () -> plain.configured("day-3", () -> "both in")))
                            .isInstanceOf(LockKindMismatchException.class);
                    assertThat(plain.configured("day-2", () -> "alone")).isEqualTo("alone");
                }));
    }

    @Test
    void oneNameFairInOneMethodAndPlainInAnotherStopsStartup() {
        RelockContexts.on(redis).withBean("culprit", HalfFair.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("'daily'", "fair", "exclusive");
        });
    }

    @Test
    void aFairReadLockStopsStartup() {
        RelockContexts.on(redis).withBean("culprit", FairRead.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(new RelockFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                    .contains("a fair lock is asked for with mode READ");
        });
    }

    public static class Reports {

        @DistributedLock(name = "reports", key = "#day", fair = true)
        public <T> T annotated(String day, java.util.function.Supplier<T> inside) {
            return inside.get();
        }

        @DistributedLock(name = "configured", key = "#day")
        public <T> T configured(String day, java.util.function.Supplier<T> inside) {
            return inside.get();
        }
    }

    public static class HalfFair {

        @DistributedLock(name = "daily", key = "#day", fair = true)
        public void fair(String day) {
        }

        @DistributedLock(name = "daily", key = "#day")
        public void plain(String day) {
        }
    }

    public static class FairRead {

        @DistributedLock(name = "reads", key = "#day", fair = true, mode = LockMode.READ)
        public void read(String day) {
        }
    }

    public static class Docs {

        volatile CountDownLatch together = new CountDownLatch(0);
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostReaders = new AtomicInteger();
        private Docs self;

        /** Through the proxy, like every call here: its own fields are not the bean's. */
        public void expectReaders(int readers) {
            together = new CountDownLatch(readers);
        }

        public int mostReaders() {
            return mostReaders.get();
        }

        @Autowired
        void setSelf(@Lazy Docs self) {
            this.self = self;
        }

        @DistributedLock(name = "docs", key = "#id", mode = LockMode.READ, waitTime = "5s")
        public void read(String id) throws InterruptedException {
            mostReaders.accumulateAndGet(inside.incrementAndGet(), Math::max);
            together.countDown();
            together.await(5, TimeUnit.SECONDS);
            inside.decrementAndGet();
        }

        @DistributedLock(name = "docs", key = "#id", mode = LockMode.READ, waitTime = "0s")
        public String readOnce(String id) {
            return id;
        }

        @DistributedLock(name = "docs", key = "#id", mode = LockMode.WRITE, waitTime = "5s")
        public void write(String id, CountDownLatch writing, CountDownLatch finish) throws InterruptedException {
            writing.countDown();
            finish.await(10, TimeUnit.SECONDS);
        }

        @DistributedLock(name = "docs", key = "#id", mode = LockMode.WRITE, waitTime = "1s")
        public String writeThenRead(String id) {
            return self.readOnce(id); // a downgrade: the writer may read
        }

        @DistributedLock(name = "docs", key = "#id", mode = LockMode.READ, waitTime = "1s")
        public String readThenWrite(String id) {
            return self.writeThenRead(id); // an upgrade: refused at once
        }
    }

    public static class Mixed {

        @DistributedLock(name = "shared", key = "#id")
        public void exclusive(String id) {
        }

        @DistributedLock(name = "shared", key = "#id", mode = LockMode.READ)
        public void read(String id) {
        }
    }

    public static class SeveralKeys {

        @DistributedLock(name = "pair", keys = {"#a", "#b"}, mode = LockMode.WRITE)
        public void write(String a, String b) {
        }
    }
}
