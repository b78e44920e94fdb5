package io.github.relock.core.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/** Fencing tokens only ever grow, whatever ends a hold, also when Redis loses everything. */
@Timeout(120)
@Tag("jdk-independent")
class FencingAcrossEventsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient a;
    RedisLockClient b;
    final List<Long> tokens = new ArrayList<>();

    @BeforeEach
    void setUp() {
        a = RedisLockClient.builder(redis.connectionFactory()).fencingTokenRetention(Duration.ofSeconds(1)).build();
        b = RedisLockClient.builder(redis.connectionFactory()).fencingTokenRetention(Duration.ofSeconds(1)).build();
    }

    @AfterEach
    void tearDown() {
        a.close();
        b.close();
    }

    private void record(ReentrantDistributedLock lock) {
        long token = lock.fencingToken();
        if (!tokens.isEmpty()) {
            assertThat(token).as("token after %s", tokens).isGreaterThan(tokens.get(tokens.size() - 1));
        }
        tokens.add(token);
    }

    @Test
    void tokensGrowAcrossReleaseExpiryForceUnlockRetentionReplayAndRestart() throws Exception {
        for (boolean fair : new boolean[] {false, true}) {
            tokens.clear();
            String name = "bk2:fence:" + fair;
            ReentrantDistributedLock x = fair ? a.getFairLock(name) : a.getLock(name);
            ReentrantDistributedLock y = fair ? b.getFairLock(name) : b.getLock(name);
            // release
            assertThat(x.tryLock()).isTrue();
            record(x);
            x.unlock();
            assertThat(y.tryLock()).isTrue();
            record(y);
            y.unlock();
            // expiry of a fixed lease, then the other client
            assertThat(x.tryLock(0, 100, TimeUnit.MILLISECONDS)).isTrue();
            record(x);
            assertThat(y.tryLock(2, TimeUnit.SECONDS)).isTrue();
            record(y);
            assertThatThrownBy(x::unlock).isInstanceOf(LockLostException.class);
            // forceUnlock while held, then the former holder's nested re-entry and release
            assertThat(x.forceUnlock()).isTrue();
            assertThatThrownBy(y::unlock).isInstanceOf(LockLostException.class);
            assertThat(x.tryLock()).isTrue();
            record(x);
            // re-entry that lengthens the lease goes to Redis: same token
            long outer = x.fencingToken();
            assertThat(x.tryLock(0, 60, TimeUnit.SECONDS)).isTrue();
            assertThat(x.fencingToken()).isEqualTo(outer);
            x.unlock();
            x.unlock();
            // the counter outlives its 1 s retention, and the lock sits free meanwhile
            Thread.sleep(1300);
            assertThat(redis.commands().exists(x.getKey() + ":fence")).isZero();
            assertThat(y.tryLock()).isTrue();
            record(y);
            // a hold longer than the retention
            Thread.sleep(1300);
            y.unlock();
            assertThat(x.tryLock()).isTrue();
            record(x);
            // a replayed first acquisition: the owner's field there, its client unaware (written by hand here)
            LockOwner owner = a.newOwner();
            ReentrantDistributedLock byOwner = fair ? a.getFairLock(name, owner) : a.getLock(name, owner);
            x.unlock();
            redis.commands().hset(x.getKey(), owner.id(), "1");
            redis.commands().pexpire(x.getKey(), 30_000);
            assertThat(byOwner.tryLock()).as("a replay of its own hold").isTrue();
            record(byOwner);
            byOwner.unlock();
            assertThat(redis.commands().exists(x.getKey())).isZero();
            // Redis loses everything while a holds
            assertThat(x.tryLock()).isTrue();
            record(x);
            redis.server().kill();
            redis.server().restart();
            assertThat(redis.commands().dbsize()).isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean got = false;
            while (!got && System.nanoTime() < deadline) {
                try {
                    got = y.tryLock(1, TimeUnit.SECONDS);
                }
                catch (RuntimeException reconnecting) {
                    Thread.sleep(100);
                }
            }
            assertThat(got).isTrue();
            record(y);
            assertThatThrownBy(x::unlock).isInstanceOf(LockLostException.class);
            y.unlock();
        }
    }

    /** Local hand-off (transfer.lua) between threads of one client: each new holder a larger token. */
    @Test
    void handOffsIssueGrowingTokens() throws Exception {
        ReentrantDistributedLock lock = a.getLock("bk2:handoff");
        int threads = 6;
        int rounds = 50;
        AtomicLong last = new AtomicLong();
        AtomicLong bad = new AtomicLong();
        AtomicLong inside = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            started(() -> {
                for (int i = 0; i < rounds; i++) {
                    lock.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            bad.incrementAndGet();
                        }
                        long token = lock.fencingToken();
                        if (token <= last.get()) {
                            bad.incrementAndGet();
                        }
                        last.set(token);
                        inside.decrementAndGet();
                    }
                    finally {
                        lock.unlock();
                    }
                }
                done.countDown();
            });
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(bad.get()).isZero();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
    }

    private static Thread started(Runnable body) {
        Thread thread = new Thread(body);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
