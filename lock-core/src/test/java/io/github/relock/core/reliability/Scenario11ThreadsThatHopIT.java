package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 11: work that moves between threads. Pooled threads reused after calls that threw; virtual
 * threads (JDK 21+); the explicit owner API across a {@code CompletableFuture} chain. A stranger, a later
 * task on a reused thread or another owner, must never re-enter a hold silently (an outermost
 * acquisition always gets a fresh fencing token), and 10,000 annotated-style calls with random
 * exceptions must leave no lock held.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
class Scenario11ThreadsThatHopIT {

    static final int CALLS = 10_000;
    static final int KEYS = 8;
    static final int CHAINS = 1_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final Phases phases = new Phases("pool", "chain"); // "virtual" needs JDK 21+
    private final ScenarioRunner<Phases, Calls> scenario = ScenarioRunner.inPhases("11", "threads that hop", phases);
    private String virtualThreads = "not run";

    /** What a run of annotated-style calls found. */
    record Calls(long calls, long threw, long strangerReentries, long heldAfter, long keysAfter, long overlaps,
                 long notAcquired) {
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> new ReliabilityReport.Figures(
                String.format(Locale.ROOT, "%,d annotated-style calls on a pool of reused threads (random exceptions, "
                        + "depth 1-3); %s; %,d CompletableFuture chains with an explicit owner", CALLS, virtualThreads,
                        CHAINS),
                real.violations(),
                real.figures("pool", "") + "; " + real.figures("virtual", virtualThreads) + "; "
                        + real.figures("chain", ""),
                "no silent re-entry by a stranger; 10,000 calls with random exceptions leave 0 held locks",
                real.violations() == 0,
                String.format(Locale.ROOT, "release that never decrements: %,d stranger re-entries, %d locks still "
                        + "held after %,d calls", control.strangerReentries(), control.heldAfter(), control.calls())));
    }

    @Test
    @Order(1)
    void pooledThreadsReusedAfterExceptionsNeverInheritAHold() throws Exception {
        Calls calls = annotatedCalls(Executors.newFixedThreadPool(4), Executors.newFixedThreadPool(4), CALLS, "pool", 30_000,
                0);
        phases.record("pool", describe("pooled threads", calls), calls.calls(), calls.strangerReentries()
                + calls.heldAfter() + calls.keysAfter() + calls.overlaps() + calls.notAcquired());
        assertThat(calls.notAcquired()).isZero();
        assertThat(calls.threw()).isPositive();
        assertThat(calls.strangerReentries()).isZero();
        assertThat(calls.heldAfter()).isZero();
        assertThat(calls.keysAfter()).isZero();
        assertThat(calls.overlaps()).isZero();
    }

    @Test
    @Order(2)
    void virtualThreads() throws Exception {
        ExecutorService first = virtualThreadExecutor();
        Assumptions.assumeTrue(first != null, () -> {
            virtualThreads = "virtual threads skipped (JDK " + Runtime.version().feature() + " has none; run on 21+)";
            return virtualThreads;
        });
        Calls calls = annotatedCalls(first, virtualThreadExecutor(), 2_000, "virtual", 30_000, 0);
        virtualThreads = String.format(Locale.ROOT, "%,d calls on virtual threads (JDK %d)", calls.calls(),
                Runtime.version().feature());
        phases.record("virtual", describe("virtual threads", calls), calls.calls(), calls.strangerReentries()
                + calls.heldAfter() + calls.keysAfter() + calls.overlaps());
        assertThat(calls.strangerReentries()).isZero();
        assertThat(calls.heldAfter()).isZero();
        assertThat(calls.overlaps()).isZero();
    }

    @Test
    @Order(3)
    void anExplicitOwnerCarriesTheHoldAcrossAFutureChainAndNobodyElseGetsIn() throws Exception {
        ExecutorService stages = Executors.newFixedThreadPool(4);
        // acquisitions wait; on a pool of their own they cannot starve the stages that release
        ExecutorService acquirers = Executors.newCachedThreadPool();
        RedisLockClient client = RedisLockClient.builder(redis.newConnectionFactory()).build();
        AtomicLong strangerIn = new AtomicLong();
        AtomicLong strangerTries = new AtomicLong();
        AtomicLong hops = new AtomicLong();
        try {
            List<CompletableFuture<Void>> chains = new ArrayList<>();
            for (int i = 0; i < CHAINS; i++) {
                String name = "chain-" + (i % KEYS);
                LockOwner owner = client.newOwner();
                ReentrantDistributedLock lock = client.getLock(name, owner);
                CompletableFuture<Void> chain = CompletableFuture
                        .supplyAsync(() -> {
                            lock.lock();
                            return Thread.currentThread();
                        }, acquirers)
                        .thenApplyAsync(acquiredOn -> {
                            // a later stage, likely on another thread, re-enters as the same owner
                            lock.lock();
                            if (acquiredOn != Thread.currentThread()) {
                                hops.incrementAndGet();
                            }
                            // strangers: this thread without the owner, and another owner
                            strangerTries.addAndGet(2);
                            if (client.getLock(name).tryLock()) {
                                strangerIn.incrementAndGet();
                                client.getLock(name).unlock();
                            }
                            if (client.getLock(name, client.newOwner()).tryLock()) {
                                strangerIn.incrementAndGet();
                            }
                            lock.unlock();
                            return null;
                        }, stages)
                        .thenRunAsync(lock::unlock, stages);
                chains.add(chain);
                if (chains.size() >= 16) {
                    chains.remove(0).get(30, TimeUnit.SECONDS);
                }
            }
            for (CompletableFuture<Void> chain : chains) {
                chain.get(30, TimeUnit.SECONDS);
            }
            long held = client.heldLocks().size();
            long keys = LockHashes.left(redis.commands(), client, LockHashes.numbered("chain-", KEYS)).size();
            phases.record("chain", String.format(Locale.ROOT, "CompletableFuture chains: %,d (%,d changed thread "
                            + "between stages), strangers got in %d of %,d tries, %d held after", CHAINS, hops.get(),
                    strangerIn.get(), strangerTries.get(), held + keys), CHAINS, strangerIn.get() + held + keys);
            assertThat(strangerIn.get()).isZero();
            assertThat(held + keys).isZero();
        }
        finally {
            stages.shutdownNow();
            acquirers.shutdownNow();
            client.close();
        }
    }

    @Test
    @Order(4)
    void checkerCatchesAReleaseThatNeverGivesAHoldBack() throws Exception {
        Calls control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RELEASE_NO_DECREMENT)) {
                // nested levels with a longer lease than the hold has: Redis counts them, so the broken release
                // script sees them (nested lock() calls are counted in the client and never reach it)
                return annotatedCalls(Executors.newFixedThreadPool(4), Executors.newFixedThreadPool(4), 500, "broken",
                        50, 6_000);
            }
        });
        System.out.println("scenario 11 control: " + control);
        assertThat(control.strangerReentries()).isPositive();
        assertThat(control.heldAfter()).isPositive();
    }

    /**
     * Two clients, each with its own pool, run {@code count} annotated-style calls: take the lock, maybe
     * call a nested annotated method on the same key, maybe throw, release in {@code finally}. An
     * outermost acquisition whose fencing token was seen before re-entered someone's hold.
     */
    /** @param nestedLeaseMillis the lease nested calls ask for; 0: none (the watchdog's, as the outer call) */
    private Calls annotatedCalls(ExecutorService poolA, ExecutorService poolB, int count, String prefix,
            long waitMillis, long nestedLeaseMillis) throws Exception {
        AtomicLong notAcquired = new AtomicLong();
        RedisLockClient clientA = RedisLockClient.builder(redis.newConnectionFactory())
                .watchdogTimeout(Duration.ofSeconds(2)).build();
        RedisLockClient clientB = RedisLockClient.builder(redis.newConnectionFactory())
                .watchdogTimeout(Duration.ofSeconds(2)).build();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        AtomicLong threw = new AtomicLong();
        AtomicLong reentries = new AtomicLong();
        AtomicLong remaining = new AtomicLong(count);
        History history = new History();
        ExecutorService drivers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                RedisLockClient client = w % 2 == 0 ? clientA : clientB;
                ExecutorService pool = w % 2 == 0 ? poolA : poolB;
                workers.add(drivers.submit(() -> {
                    // each task is one call; the pool reuses its threads for the next ones
                    while (remaining.getAndDecrement() > 0) {
                        String key = prefix + "-" + ThreadLocalRandom.current().nextInt(KEYS);
                        Future<?> call = pool.submit(() -> {
                            try {
                                annotated(client, key, 1 + ThreadLocalRandom.current().nextInt(3), tokens, reentries,
                                        history, waitMillis, notAcquired, nestedLeaseMillis);
                            }
                            catch (IllegalStateException ex) {
                                threw.incrementAndGet();
                            }
                            catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                            }
                        });
                        call.get(30, TimeUnit.SECONDS);
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS);
            }
            long held = clientA.heldLocks().size() + clientB.heldLocks().size();
            long keys = LockHashes.left(redis.commands(), clientA, LockHashes.numbered(prefix + "-", KEYS)).size();
            Calls calls = new Calls(count, threw.get(), reentries.get(), held, keys, history.sweep().overlaps(),
                    notAcquired.get());
            System.out.println("scenario 11 " + prefix + ": " + calls);
            return calls;
        }
        finally {
            drivers.shutdownNow();
            poolA.shutdownNow();
            poolB.shutdownNow();
            clientA.close();
            clientB.close();
        }
    }

    /** What {@code @DistributedLock} does around a method: lock, run, unlock in finally; nested calls re-enter. */
    private static void annotated(RedisLockClient client, String key, int depth, Set<Long> tokens, AtomicLong reentries,
            History history, long waitMillis, AtomicLong notAcquired, long nestedLeaseMillis)
            throws InterruptedException {
        ReentrantDistributedLock lock = client.getLock(key);
        if (!lock.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
            notAcquired.incrementAndGet(); // @DistributedLock would throw LockNotAcquiredException
            return;
        }
        long acquired = System.nanoTime();
        long token = lock.fencingToken();
        if (!tokens.add(token)) {
            reentries.incrementAndGet(); // an "outermost" call got an old token: it re-entered a stale hold
        }
        try {
            nested(lock, depth - 1, nestedLeaseMillis);
        }
        finally {
            long released = System.nanoTime();
            lock.unlock();
            history.record(client.getClientId(), Thread.currentThread().getName(), key, token, acquired, released);
        }
    }

    private static void nested(ReentrantDistributedLock lock, int depth, long leaseMillis) {
        if (ThreadLocalRandom.current().nextInt(10) < 3) {
            throw new IllegalStateException("business failure inside the lock");
        }
        if (depth > 0) {
            if (leaseMillis > 0) {
                lock.lock(leaseMillis, TimeUnit.MILLISECONDS);
            }
            else {
                lock.lock();
            }
            try {
                nested(lock, depth - 1, leaseMillis);
            }
            finally {
                lock.unlock();
            }
        }
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()} through reflection (compiled for 17), or null. */
    private static ExecutorService virtualThreadExecutor() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        }
        catch (ReflectiveOperationException ex) {
            return null;
        }
    }

    private static String describe(String what, Calls calls) {
        return String.format(Locale.ROOT, "%s: %,d calls, %,d threw, %d stranger re-entries, %d locks held after, %d "
                        + "overlaps", what, calls.calls(), calls.threw(), calls.strangerReentries(),
                calls.heldAfter() + calls.keysAfter(), calls.overlaps());
    }
}
