package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 7: the watchdog's work ends when the hold ends, whichever way it ends: unlock, {@code close()},
 * the JVM exiting, waiters interrupted over and over, futures cancelled. 3 leases after the last release
 * no key may be left (nothing still renewed), {@code PUBSUB NUMSUB} must be back to its baseline, and no
 * relock thread may outlive {@code close()}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class Scenario07WatchdogLifetimeIT {

    static final long LEASE_MILLIS = 600;
    static final Duration STORM = Duration.ofSeconds(3);
    static final int CONTROL_LOCKS = 20;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final Phases phases = new Phases("unlock", "close", "exit", "storm");
    /** The control's figure: how many locks a release that never decrements left renewed. */
    private final ScenarioRunner<Phases, Long> scenario = ScenarioRunner.inPhases("7", "watchdog lifetime", phases);

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, controlRenewed) -> new ReliabilityReport.Figures(
                real.trials() + " holds ended by unlock, close(), JVM exit, interrupt storm (" + STORM.toSeconds()
                        + " s) and cancelled futures; watchdog lease " + LEASE_MILLIS + " ms",
                real.violations(), real.joined("unlock", "close", "exit", "storm"),
                "0 keys still renewed after 3x lease; PUBSUB NUMSUB back to baseline; 0 leaked threads",
                real.violations() == 0,
                "release that never decrements (depth 2): " + controlRenewed + " of " + CONTROL_LOCKS + " locks still "
                        + "renewed after 3x lease"));
    }

    @Test
    @Order(1)
    void unlockStopsRenewal() throws Exception {
        try (RedisLockClient client = client()) {
            List<String> names = LockHashes.numbered("unlock-", 50);
            for (int i = 0; i < names.size(); i++) {
                ReentrantDistributedLock lock = client.getLock(names.get(i));
                int depth = 1 + i % 3;
                for (int d = 0; d < depth; d++) {
                    lock.lock();
                }
                for (int d = 0; d < depth; d++) {
                    lock.unlock();
                }
            }
            long left = keysAfterThreeLeases(client, names);
            phases.record("unlock", "unlock: " + left + " of 50 keys left", 50, left);
            assertThat(left).isZero();
        }
    }

    @Test
    @Order(2)
    void closeStopsRenewalAndItsThread() throws Exception {
        RedisLockClient client = client();
        List<String> names = LockHashes.numbered("close-", 20);
        for (String name : names) {
            client.getLock(name).lock();
        }
        client.close();
        // checked at once: close() must not return while its watchdog thread still runs
        boolean threadAlive = relockThreads(client.getClientId()) > 0;
        long left = keysAfterThreeLeases(client, names);
        phases.record("close", "close(): " + left + " of 20 keys left, watchdog thread "
                + (threadAlive ? "STILL ALIVE" : "gone") + " when close() returned", 20, left + (threadAlive ? 1 : 0));
        assertThat(threadAlive).as("watchdog thread alive after close()").isFalse();
        assertThat(left).isZero();
    }

    @Test
    @Order(3)
    void jvmExitStopsRenewal() throws Exception {
        List<String> names = LockHashes.numbered("exit-", 10); // the child names its locks <name>-<i>
        try (ChildJvm child = ChildJvm.start(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                ReliabilityChild.class, "mode=hold-many", "port=" + redis.server().port(), "name=exit", "count=10",
                "watchdog=" + LEASE_MILLIS);
                RedisLockClient observer = client()) {
            child.awaitLine(l -> l.startsWith("HELD-MANY"), Duration.ofSeconds(60));
            Thread.sleep(LEASE_MILLIS * 2); // renewed while the JVM lives
            long alive = LockHashes.left(redis.commands(), observer, names).size();
            child.send("exit");
            child.awaitExit(Duration.ofSeconds(10));
            long left = keysAfterThreeLeases(observer, names);
            phases.record("exit", "JVM exit: " + left + " of 10 keys left (" + alive + " were kept alive while it ran)",
                    10, left + (alive == 10 ? 0 : 1));
            assertThat(alive).isEqualTo(10);
            assertThat(left).isZero();
        }
    }

    @Test
    @Order(4)
    void anInterruptStormAndCancelledFuturesLeaveNothingBehind() throws Exception {
        LettuceConnectionFactory holderFactory = redis.newConnectionFactory();
        RedisLockClient holder = RedisLockClient.builder(holderFactory).watchdogTimeout(Duration.ofMillis(LEASE_MILLIS))
                .build();
        RedisLockClient waiters = client();
        String[] names = {"storm-0", "storm-1", "storm-2", "storm-3"};
        Map<String, Long> baseline = numsub(waiters, names);
        ExecutorService pool = Executors.newCachedThreadPool();
        AtomicBoolean storming = new AtomicBoolean(true);
        AtomicLong acquired = new AtomicLong();
        AtomicLong interrupted = new AtomicLong();
        AtomicLong timedOut = new AtomicLong();
        AtomicLong lostAfterInterruptedUnlock = new AtomicLong();
        AtomicLong lostOtherwise = new AtomicLong();
        Map<String, AtomicLong> otherErrors = new ConcurrentHashMap<>();
        Set<Thread> waiterThreads = ConcurrentHashMap.newKeySet();
        List<LockOwner> holderOwners = new ArrayList<>();
        try {
            // the holder takes and frees the locks now and then, so that waiters do get them
            Future<?> holding = pool.submit(() -> {
                LockOwner owner = holder.newOwner();
                while (storming.get()) {
                    String name = names[ThreadLocalRandom.current().nextInt(names.length)];
                    ReentrantDistributedLock lock = holder.getLock(name, owner);
                    try {
                        if (lock.tryLock(50, TimeUnit.MILLISECONDS)) {
                            Thread.sleep(30);
                            lock.unlock();
                        }
                    }
                    catch (InterruptedException ex) {
                        return null;
                    }
                }
                return null;
            });
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int kind = t;
                workers.add(pool.submit(() -> {
                    waiterThreads.add(Thread.currentThread());
                    while (storming.get()) {
                        String name = names[ThreadLocalRandom.current().nextInt(names.length)];
                        ReentrantDistributedLock lock = waiters.getLock(name);
                        boolean held = false;
                        try {
                            if (kind % 2 == 0) {
                                lock.lockInterruptibly();
                                held = true;
                            }
                            else {
                                held = lock.tryLock(200, TimeUnit.MILLISECONDS);
                            }
                            if (held) {
                                acquired.incrementAndGet();
                            }
                            else {
                                timedOut.incrementAndGet();
                            }
                        }
                        catch (InterruptedException ex) {
                            interrupted.incrementAndGet();
                        }
                        catch (RuntimeException ex) {
                            otherErrors.computeIfAbsent(ex.getClass().getSimpleName() + ": " + ex.getMessage(),
                                    k -> new AtomicLong()).incrementAndGet();
                        }
                        finally {
                            Thread.interrupted(); // an interrupt from here on arrives during the unlock
                            if (held) {
                                try {
                                    lock.unlock();
                                    Thread.interrupted();
                                }
                                catch (LockLostException ex) {
                                    // the interrupted release ran, the retry found a new holder: see the report
                                    (Thread.interrupted() ? lostAfterInterruptedUnlock : lostOtherwise)
                                            .incrementAndGet();
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            // the storm: interrupt random waiters every millisecond or so
            long stormEnd = System.nanoTime() + STORM.toNanos();
            List<Thread> targets = new ArrayList<>();
            while (System.nanoTime() < stormEnd) {
                if (targets.size() < waiterThreads.size()) {
                    targets = new ArrayList<>(waiterThreads);
                }
                if (!targets.isEmpty()) {
                    targets.get(ThreadLocalRandom.current().nextInt(targets.size())).interrupt();
                }
                Thread.sleep(0, 500_000);
            }
            // cancelled futures: FutureTask.cancel(true) interrupts, CompletableFuture.cancel does not
            long cancelled = 0;
            for (int i = 0; i < 40; i++) {
                String name = names[i % names.length];
                Future<?> task = pool.submit(() -> {
                    ReentrantDistributedLock lock = waiters.getLock(name);
                    if (lock.tryLock(2, TimeUnit.SECONDS)) {
                        try {
                            Thread.sleep(5);
                        }
                        finally {
                            Thread.interrupted();
                            lock.unlock();
                        }
                    }
                    return null;
                });
                CompletableFuture<Void> async = CompletableFuture.runAsync(() -> {
                    ReentrantDistributedLock lock = waiters.getLock(name);
                    try {
                        if (lock.tryLock(2, TimeUnit.SECONDS)) {
                            lock.unlock();
                        }
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }, pool);
                Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                cancelled += task.cancel(true) ? 1 : 0;
                cancelled += async.cancel(true) ? 1 : 0;
            }
            storming.set(false);
            for (Future<?> worker : workers) {
                worker.get(30, TimeUnit.SECONDS);
            }
            holding.get(30, TimeUnit.SECONDS);
            pool.shutdown();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).as("no thread hangs").isTrue();

            // everything was released: a lock hash now is an orphan that an interrupted attempt left behind
            List<String> orphans = LockHashes.left(redis.commands(), waiters, List.of(names));
            int heldLocal = waiters.heldLocks().size();
            Map<String, Long> after = awaitNumsub(waiters, names, baseline);
            long left = keysAfterThreeLeases(waiters, List.of(names));
            waiters.close();
            holder.close();
            boolean threads = relockThreads(waiters.getClientId()) + relockThreads(holder.getClientId()) > 0;
            String storm = String.format(Locale.ROOT, "interrupt storm: %d acquired, %d interrupted, %d timed "
                            + "out, %d futures cancelled, other errors %s; %d orphan locks right after, %d keys 3 leases "
                            + "later; PUBSUB NUMSUB %s baseline (%s); relock threads after close: %s; unlock reported a loss "
                            + "%d times after an interrupted release and %d times otherwise (a retried release "
                            + "recognises that it ran, so either would be a false report)", acquired.get(),
                    interrupted.get(), timedOut.get(), cancelled, otherErrors.isEmpty() ? "none" : otherErrors,
                    orphans.size(), left, after.equals(baseline) ? "back to its" : "NOT at its", baseline.values(),
                    threads ? "ALIVE" : "0", lostAfterInterruptedUnlock.get(), lostOtherwise.get());
            long bad = left + orphans.size() + heldLocal + (after.equals(baseline) ? 0 : 1) + (threads ? 1 : 0)
                    + otherErrors.values().stream().mapToLong(AtomicLong::get).sum() + lostOtherwise.get()
                    + lostAfterInterruptedUnlock.get();
            phases.record("storm", storm, acquired.get() + interrupted.get() + timedOut.get() + cancelled, bad);
            System.out.println("scenario 7 storm: " + storm);
            assertThat(otherErrors).as("interrupts surface as InterruptedException, nothing else").isEmpty();
            assertThat(orphans).as("locks held in Redis by nobody").isEmpty();
            assertThat(lostOtherwise.get()).as("losses reported without an interrupted release").isZero();
            assertThat(lostAfterInterruptedUnlock.get()).as("losses reported after an interrupted release").isZero();
            assertThat(heldLocal).isZero();
            assertThat(after).isEqualTo(baseline);
            assertThat(left).isZero();
            assertThat(threads).isFalse();
        }
        finally {
            storming.set(false);
            pool.shutdownNow();
            waiters.close();
            holder.close();
        }
    }

    @Test
    @Order(5)
    void checkerCatchesAReleaseThatNeverGivesAHoldBack() throws Exception {
        long controlRenewed = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RELEASE_NO_DECREMENT);
                    RedisLockClient client = client()) {
                List<String> names = LockHashes.numbered("broken-", CONTROL_LOCKS);
                for (String name : names) {
                    ReentrantDistributedLock lock = client.getLock(name);
                    lock.lock();
                    // a longer lease than the hold has: a level Redis counts, so its release goes to Redis (a
                    // nested lock() would be counted in the client, and the broken script never see it)
                    lock.lock(10 * LEASE_MILLIS, TimeUnit.MILLISECONDS);
                    lock.unlock();
                    lock.unlock();
                }
                Thread.sleep(3 * LEASE_MILLIS);
                return (long) LockHashes.left(redis.commands(), client, names).size();
            }
        });
        assertThat(controlRenewed).isPositive();
    }

    private static RedisLockClient client() {
        return RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(Duration.ofMillis(LEASE_MILLIS))
                .build();
    }

    /** Lock hashes left 3 leases from now (fencing counters stay for their retention). */
    private static long keysAfterThreeLeases(RedisLockClient client, List<String> names) throws InterruptedException {
        Thread.sleep(3 * LEASE_MILLIS);
        return LockHashes.left(redis.commands(), client, names).size();
    }

    private static long relockThreads(String clientId) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().contains(clientId)).count();
    }

    /** {@code PUBSUB NUMSUB} of the locks' release channels, by channel. */
    private static Map<String, Long> numsub(RedisLockClient client, String... names) {
        String[] channels = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            channels[i] = client.redisKeys(names[i]).releaseChannel();
        }
        return new java.util.TreeMap<>(redis.commands().pubsubNumsub(channels));
    }

    private static Map<String, Long> awaitNumsub(RedisLockClient client, String[] names, Map<String, Long> baseline)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Map<String, Long> now = numsub(client, names);
        while (!now.equals(baseline) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            now = numsub(client, names);
        }
        return now;
    }
}
