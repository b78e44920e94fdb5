package io.github.relock.core.localview;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServer;

/**
 * An owner cut off from Redis (its connections frozen behind a proxy, or Redis restarted empty) reads its hold
 * as not held by the time another client can take the lock: by the end of the lease Redis last confirmed, since
 * it cannot hear of the loss before that.
 */
@Timeout(90)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CutOffOwnerViewTest {

    static final Duration WATCHDOG = Duration.ofMillis(1500);

    @Test
    void anOwnerBehindAFrozenConnectionReadsNotHeldByTheTimeAnotherTakesTheLock() throws Exception {
        try (RedisServer server = RedisServer.start(); ChaosProxy proxy = new ChaosProxy(server.port());
                Factories factories = new Factories();
                RedisLockClient owner = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(20)))
                        .watchdogTimeout(WATCHDOG).build();
                RedisLockClient other = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock lock = owner.getLock("cut-off");
            lock.lock();
            Thread.sleep(700); // a renewal round went through
            proxy.freeze(true);
            long frozen = System.nanoTime();
            ReentrantDistributedLock theirs = other.getLock("cut-off");
            while (!theirs.tryLock()) {
                Thread.sleep(1);
            }
            long taken = System.nanoTime();
            boolean heldThen = lock.isHeldByCurrentThread();
            long readNotHeld = taken;
            while (lock.isHeldByCurrentThread()) {
                Thread.sleep(1);
                readNotHeld = System.nanoTime();
            }
            System.out.printf("frozen owner: other took it %d ms after the freeze; owner read held then: %s; "
                    + "read not held %d ms after%n", TimeUnit.NANOSECONDS.toMillis(taken - frozen), heldThen,
                    TimeUnit.NANOSECONDS.toMillis(readNotHeld - taken));
            assertThat(heldThen).as("held as the owner reads it while another holds it").isFalse();
            proxy.freeze(false);
            theirs.unlock();
        }
    }

    @Test
    void anOwnerOfARedisRestartedEmptyReadsNotHeldWithinTheLeaseRedisConfirmed() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient owner = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(20)))
                        .watchdogTimeout(WATCHDOG).build();
                RedisLockClient other = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock lock = owner.getLock("restarted");
            lock.lock();
            Thread.sleep(700);
            server.restart();
            long back = System.nanoTime();
            ReentrantDistributedLock theirs = other.getLock("restarted");
            while (!theirs.tryLock()) {
                Thread.sleep(1);
            }
            long taken = System.nanoTime();
            long readNotHeld = taken;
            while (lock.isHeldByCurrentThread() && System.nanoTime() - taken < TimeUnit.SECONDS.toNanos(30)) {
                Thread.sleep(1);
                readNotHeld = System.nanoTime();
            }
            long heldMs = TimeUnit.NANOSECONDS.toMillis(readNotHeld - taken);
            System.out.printf("restarted empty: other took it %d ms after the restart; owner read held for %d ms "
                    + "more (bound: the watchdog timeout, %d ms)%n", TimeUnit.NANOSECONDS.toMillis(taken - back),
                    heldMs, WATCHDOG.toMillis());
            assertThat(heldMs).isLessThan(WATCHDOG.toMillis());
            theirs.unlock();
        }
    }
}
