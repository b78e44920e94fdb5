package io.github.relock.core.renewal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockLostListener;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * While a renewal waits for a Redis that does not answer, every watchdog hold must be reported lost when its
 * lease ends, not when the renewal gives up at the command timeout: with more holds than one renewal batch,
 * and while the client's asynchronous calls wait for the same Redis.
 */
@Timeout(90)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class LossReportedAtLeaseEndTest {

    private static final Duration LEASE = Duration.ofMillis(1_500);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(8);
    /** Lease end plus slack: well under the command timeout. */
    private static final long TOLD_BY_MILLIS = LEASE.toMillis() + 2_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** 300 holds: more than the 256 one renewal script call carries, so two batches. */
    @Test
    void everyHoldOfARoundIsReportedWhenItsLeaseEndsNotOnlyTheFirstBatch() throws Exception {
        Told told = new Told();
        try (FrozenRedis frozen = new FrozenRedis()) {
            RedisLockClient client = told.client(frozen);
            Map<String, Long> toldAfter = told.afterMillis;
            List<ReentrantDistributedLock> locks = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                ReentrantDistributedLock lock = client.getLock("many:" + i);
                lock.lock();
                locks.add(lock);
            }
            told.freeze(frozen);
            await().atMost(Duration.ofSeconds(30)).until(() -> toldAfter.size() == 300);
            long latest = toldAfter.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            long late = toldAfter.values().stream().filter(ms -> ms >= TOLD_BY_MILLIS).count();
            System.out.printf("300 holds, lease %d ms, Redis frozen: all told within %d ms, %d after %d ms%n",
                    LEASE.toMillis(), latest, late, TOLD_BY_MILLIS);
            assertThat(latest).as("the last of 300 holds told by its lease end, not the %d s command timeout",
                    COMMAND_TIMEOUT.toSeconds()).isLessThan(TOLD_BY_MILLIS);
            assertThat(locks).allMatch(ReentrantDistributedLock::isLost);
        }
    }

    /** The guard's timer must not queue behind asynchronous round trips that wait for the same frozen Redis. */
    @Test
    void aLeaseEndIsReportedWhileAsynchronousCallsWaitForRedis() throws Exception {
        Told told = new Told();
        try (FrozenRedis frozen = new FrozenRedis()) {
            RedisLockClient client = told.client(frozen);
            Map<String, Long> toldAfter = told.afterMillis;
            ReentrantDistributedLock held = client.getLock("held-while-async");
            held.lock();
            told.freeze(frozen);
            List<CompletableFuture<Boolean>> calls = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    calls.add(client.getLock("async:" + i).tryLockAsync(Duration.ofSeconds(1), null, client.newOwner()));
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> !toldAfter.isEmpty());
                long after = toldAfter.get("held-while-async");
                System.out.printf("lease %d ms, Redis frozen, 8 asynchronous calls waiting: told after %d ms%n",
                        LEASE.toMillis(), after);
                assertThat(after).as("told by the lease end, not after the asynchronous calls' %d s command timeout",
                        COMMAND_TIMEOUT.toSeconds()).isLessThan(TOLD_BY_MILLIS);
                assertThat(held.isLost()).isTrue();
            }
            finally {
                frozen.thaw();
                calls.forEach(call -> call.cancel(true));
            }
        }
    }

    /** close() while the guard waits for a lease end: nothing is reported after close(), no thread is left. */
    @Test
    void closeWhileTheGuardWaitsReportsNothingAfterwardsAndLeavesNoThread() throws Exception {
        List<String> toldAfterClose = new CopyOnWriteArrayList<>();
        boolean[] closedFlag = new boolean[1];
        try (FrozenRedis frozen = new FrozenRedis()) {
            RedisLockClient client = frozen.newClient();
            client.addLockLostListener(event -> {
                if (closedFlag[0]) {
                    toldAfterClose.add(event.lockName());
                }
            });
            for (int i = 0; i < 20; i++) {
                client.getLock("closing:" + i).lock();
            }
            frozen.freeze();
            Thread.sleep(LEASE.toMillis() / 2); // a renewal round is under way, its guard armed
            long start = System.nanoTime();
            client.close();
            closedFlag[0] = true;
            long closeMillis = (System.nanoTime() - start) / 1_000_000;
            Thread.sleep(LEASE.toMillis() + 500); // past every lease end
            List<String> left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                    .map(Thread::getName).filter(name -> name.contains(client.getClientId())).toList();
            System.out.printf("close() with a renewal frozen took %d ms; threads left %s; told after close %s%n",
                    closeMillis, left, toldAfterClose);
            assertThat(closeMillis).isLessThan(3_000);
            assertThat(left).isEmpty();
            assertThat(toldAfterClose).isEmpty();
        }
    }

    /**
     * Holds taken over a second (so their lease ends differ), half of them asynchronously with explicit owners,
     * and a listener that throws an Error on every report: each hold is still told at its own lease end.
     */
    @Test
    void holdsWithDifferentLeaseEndsAreEachToldThoughAListenerThrowsAnError() throws Exception {
        Map<String, Long> toldAt = new ConcurrentHashMap<>();
        Map<String, Long> leaseEndAt = new ConcurrentHashMap<>();
        try (FrozenRedis frozen = new FrozenRedis()) {
            RedisLockClient client = frozen.newClient();
            client.addLockLostListener(event -> {
                throw new AssertionError("a listener that fails: " + event.lockName());
            });
            client.addLockLostListener(event -> toldAt.put(event.lockName(), System.nanoTime()));
            List<ReentrantDistributedLock> locks = new ArrayList<>();
            List<LockOwnerAndLock> asyncHolds = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String name = "spread:" + i;
                if (i % 2 == 0) {
                    ReentrantDistributedLock lock = client.getLock(name);
                    lock.lock();
                    locks.add(lock);
                }
                else {
                    LockOwner owner = client.newOwner();
                    ReentrantDistributedLock lock = client.getLock(name);
                    assertThat(lock.tryLockAsync(Duration.ZERO, null, owner).get(5, TimeUnit.SECONDS))
                            .isTrue();
                    asyncHolds.add(new LockOwnerAndLock(owner, lock));
                }
                Thread.sleep(50);
            }
            frozen.freeze();
            // the lease each hold has left, as the client knows it, when Redis stops answering
            for (var held : client.heldLocks()) {
                leaseEndAt.put(held.name(),
                        System.nanoTime() + Duration.between(Instant.now(), held.leaseExpiresAt()).toNanos());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> toldAt.size() == 20);
            long worst = 0;
            for (var told : toldAt.entrySet()) {
                Long end = leaseEndAt.get(told.getKey());
                if (end != null) {
                    worst = Math.max(worst, (told.getValue() - end) / 1_000_000);
                }
            }
            System.out.printf("20 holds, lease ends spread over 1 s, a listener throwing an Error: told at most "
                    + "%d ms after each lease end%n", worst);
            assertThat(worst).isLessThan(1_000);
            assertThat(locks).allMatch(ReentrantDistributedLock::isLost);
            for (LockOwnerAndLock held : asyncHolds) {
                assertThat(held.lock().unlockAsync(held.owner())).failsWithin(Duration.ofSeconds(5))
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(LockLostException.class);
            }
        }
    }

    private record LockOwnerAndLock(LockOwner owner, ReentrantDistributedLock lock) {
    }

    /** A listener told by the guard closes the client: close() neither hangs nor leaves a thread. */
    @Test
    void closeFromAListenerToldByTheGuard() throws Exception {
        List<String> closedOn = new CopyOnWriteArrayList<>();
        try (FrozenRedis frozen = new FrozenRedis()) {
            RedisLockClient client = frozen.newClient();
            client.addLockLostListener(event -> {
                client.close();
                closedOn.add(Thread.currentThread().getName());
            });
            for (int i = 0; i < 5; i++) {
                client.getLock("close-from-listener:" + i).lock();
            }
            frozen.freeze();
            await().atMost(Duration.ofSeconds(10)).until(() -> !closedOn.isEmpty());
            assertThat(client.isClosed()).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> Thread.getAllStackTraces().keySet().stream()
                    .filter(Thread::isAlive).noneMatch(thread -> thread.getName().contains(client.getClientId())));
            System.out.printf("closed from a listener on %s; no thread of the client left%n", closedOn.get(0));
        }
    }

    /**
     * A re-entry that lengthened a hold's lease keeps it out of the renewal rounds until less is left: when a
     * round for other holds is already waiting for a frozen Redis, that hold's lease end must still be told.
     */
    @Test
    void aHoldLeftOutOfTheFrozenRoundIsToldAtItsLeaseEndToo() throws Exception {
        Told told = new Told();
        try (FrozenRedis frozen = new FrozenRedis()) {
            RedisLockClient client = told.client(frozen);
            Map<String, Long> toldAfter = told.afterMillis;
            ReentrantDistributedLock renewed = client.getLock("in-the-round");
            renewed.lock();
            ReentrantDistributedLock lengthened = client.getLock("left-out");
            lengthened.lock();
            assertThat(lengthened.tryLock(0, 2_500, TimeUnit.MILLISECONDS)).isTrue(); // 2.5 s: renewed once < 1.5 s left
            told.freeze(frozen);
            await().atMost(Duration.ofSeconds(30)).until(() -> toldAfter.size() == 2);
            System.out.printf("frozen: the hold in the round told after %d ms, the lengthened one (2.5 s lease) "
                    + "after %d ms%n", toldAfter.get("in-the-round"), toldAfter.get("left-out"));
            assertThat(toldAfter.get("left-out")).as("told by its 2.5 s lease end, not the %d s command timeout",
                    COMMAND_TIMEOUT.toSeconds()).isLessThan(2_500 + 1_000);
        }
    }

    /** When each lock's loss was told, in ms after Redis was frozen; the client it listens on. */
    private static final class Told implements LockLostListener {

        final Map<String, Long> afterMillis = new ConcurrentHashMap<>();
        private volatile long frozenAt;

        RedisLockClient client(FrozenRedis frozen) {
            RedisLockClient client = frozen.newClient();
            client.addLockLostListener(this);
            return client;
        }

        void freeze(FrozenRedis frozen) {
            frozenAt = System.nanoTime();
            frozen.freeze();
        }

        @Override
        public void lockLost(LockLostEvent event) {
            afterMillis.put(event.lockName(), (System.nanoTime() - frozenAt) / 1_000_000);
        }
    }

    /**
     * The test's redis-server behind a proxy that can stop answering; closing it lets Redis answer again, then
     * closes the clients it made, their connection factories and the proxy.
     */
    private static final class FrozenRedis implements AutoCloseable {

        private final ChaosProxy proxy;
        private final Factories factories;
        private final List<RedisLockClient> clients = new ArrayList<>();

        FrozenRedis() throws IOException {
            proxy = new ChaosProxy(redis.server().port());
            factories = new Factories();
        }

        /** A client through the proxy, with the test's watchdog lease and command timeout. */
        RedisLockClient newClient() {
            RedisLockClient client = RedisLockClient.builder(factories.standalone(proxy.port(), COMMAND_TIMEOUT))
                    .watchdogTimeout(LEASE).build();
            clients.add(client);
            return client;
        }

        void freeze() {
            proxy.freeze(true);
        }

        void thaw() {
            proxy.freeze(false);
        }

        @Override
        public void close() {
            thaw();
            clients.forEach(RedisLockClient::close);
            factories.close();
            proxy.close();
        }
    }
}
