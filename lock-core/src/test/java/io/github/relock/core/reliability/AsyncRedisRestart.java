package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 16, phase 3: redis-server is SIGKILLed and restarted empty while asynchronous holders of one
 * client hold {@value #KEYS} locks (watchdog) and write to a fenced resource every 10 ms, and asynchronous
 * waiters of two other clients wait for those locks. A waiter may take a lock before its old holder hears of
 * the loss (Redis forgot it: the documented limit); fencing must then refuse every write of the old holder.
 * Each holder must hear of its loss at the next renewal, and its {@code unlockAsync} must fail with
 * {@code LockLostException}; every waiter's future must complete within its wait + 1 s; afterwards, new
 * asynchronous acquisitions must be granted.
 */
final class AsyncRedisRestart {

    static final int KEYS = 3;
    static final int WAITERS = 4; // per key, in two clients
    static final long WATCHDOG_MILLIS = 1_500;
    static final long RENEWAL_MILLIS = WATCHDOG_MILLIS / 3;
    static final long WAIT_MILLIS = 3_000;
    static final long SLACK_MILLIS = 1_000;
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
    static final String LOST = "unlockAsync failed: LockLostException";

    /** What the restarts found. */
    static final class Outcome {
        final List<Long> lostAfterRestart = new ArrayList<>();
        int trials;
        long holds;
        long lossNotReported;
        long fresh;
        long freshGranted;
        long unlockLost;
        Map<String, Long> others = Map.of();
        long pending;
        Stats latency = new Stats(List.of());
        History.Sweep sweep = new History.Sweep(0, 0, 0, 0);
        long staleRefused;
        long staleAccepted;
        long lostUpdates;
        long holdsLeft;
        long subscriptionsLeft;
        long doubleBeliefMillis;

        long violations() {
            long lateLoss = lostAfterRestart.stream().filter(ms -> ms > RENEWAL_MILLIS + 200).count();
            long overlapTooLong = doubleBeliefMillis > RENEWAL_MILLIS + 200 ? 1 : 0;
            return lossNotReported + lateLoss + Math.abs(holds - unlockLost) + (fresh - freshGranted) + pending
                    + (latency.max() > WAIT_MILLIS + SLACK_MILLIS ? 1 : 0) + staleAccepted + lostUpdates
                    + sweep.tokenRegressions() + overlapTooLong + holdsLeft + subscriptionsLeft;
        }

        String figures() {
            Stats lost = new Stats(lostAfterRestart);
            return String.format(Locale.ROOT, "Redis restarted: %d of %d async holds heard of the loss %d (p50) / %d "
                            + "(max) ms after the restart, %d unlockAsync failed with LockLostException; fencing "
                            + "refused %d writes of old holders, accepted %d, %d lost updates; %d waiters' holds began "
                            + "before their old holder heard (Redis forgot it: the documented limit), which believed "
                            + "it held for at most %d ms more; slowest future %d ms of its %d ms wait, other "
                            + "outcomes %s, %d pending; %d of %d new acquisitions after the restart granted; "
                            + "afterwards %d holds in Redis, %d subscriptions",
                    holds - lossNotReported, holds, lost.percentile(50), lost.max(), unlockLost, staleRefused,
                    staleAccepted, lostUpdates, sweep.overlaps(), doubleBeliefMillis, latency.max(), WAIT_MILLIS,
                    others.isEmpty() ? "none" : others, pending, freshGranted, fresh, holdsLeft, subscriptionsLeft);
        }
    }

    private AsyncRedisRestart() {
    }

    static Outcome run(RedisServerExtension redis, String prefix, int trials) throws Exception {
        Outcome outcome = new Outcome();
        List<RedisLockClient> waiterClients = new ArrayList<>();
        // clients that reconnect within 100 ms: what is measured is the lock, not Lettuce's reconnect back-off
        try (Factories factories = new Factories(); AsyncHolders holders = new AsyncHolders(WAIT_MILLIS);
                RedisLockClient holderClient = RedisLockClient.builder(factories.standalone(redis.server().port(),
                                COMMAND_TIMEOUT)).watchdogTimeout(Duration.ofMillis(WATCHDOG_MILLIS))
                        .lockLostListener(holders.listener()).build()) {
            for (int c = 0; c < 2; c++) {
                waiterClients.add(RedisLockClient.builder(factories.standalone(redis.server().port(), COMMAND_TIMEOUT))
                        .watchdogTimeout(Duration.ofMillis(WATCHDOG_MILLIS)).build());
            }
            List<String> keys = new ArrayList<>();
            for (int trial = 0; trial < trials; trial++) {
                keys.addAll(trial(redis, holders, holderClient, waiterClients, prefix + "-" + trial + "-", outcome));
            }
            outcome.pending = holders.pending(WAIT_MILLIS + 5_000);
            outcome.holdsLeft = LockHashes.left(redis.commands(), holderClient, keys).size();
            outcome.subscriptionsLeft = LockHashes.subscribers(redis.commands(), holderClient, keys, 2_000);
            outcome.unlockLost = holders.outcomes().count(LOST);
            outcome.others = holders.outcomes().otherThan(List.of("granted", "timed out", LOST));
            outcome.latency = holders.outcomes().latencies();
            outcome.sweep = holders.history().sweep();
            outcome.doubleBeliefMillis = longestDoubleBelief(holders.history());
            outcome.staleRefused = holders.resource().staleRefused();
            outcome.staleAccepted = holders.resource().staleAccepted();
            outcome.lostUpdates = holders.resource().lostUpdates();
            System.out.printf("scenario 16 restart %s: %s; %s; latency %s%n", prefix, outcome.figures(),
                    holders.resource(), outcome.latency);
            return outcome;
        }
        finally {
            waiterClients.forEach(RedisLockClient::close);
        }
    }

    /** One restart; returns the names of its locks. */
    private static List<String> trial(RedisServerExtension redis, AsyncHolders holders, RedisLockClient holderClient,
            List<RedisLockClient> waiterClients, String prefix, Outcome outcome) throws Exception {
        List<String> keys = LockHashes.numbered(prefix, KEYS);
        CompletableFuture<Void> release = new CompletableFuture<>();
        List<LockOwner> owners = new ArrayList<>();
        List<CompletableFuture<Boolean>> granted = new ArrayList<>();
        for (String key : keys) {
            owners.add(holderClient.newOwner());
            granted.add(holders.holdUntil(holderClient, key, owners.get(owners.size() - 1), 10, release));
        }
        CompletableFuture.allOf(granted.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        List<CompletableFuture<Boolean>> waiters = new ArrayList<>();
        for (String key : keys) {
            for (int w = 0; w < WAITERS; w++) {
                Duration lease = w < WAITERS / 2 ? null : Duration.ofSeconds(1);
                waiters.add(holders.attempt(waiterClients.get(w % 2), key, lease, 1, 20));
            }
        }
        Thread.sleep(100); // the waiters are asleep in their waits
        awaitRenewal(redis, holderClient.redisKeys(keys.get(0)).lock());
        redis.server().kill();
        Thread.sleep(ThreadLocalRandom.current().nextInt(200));
        redis.server().restart();
        long restartedAt = System.nanoTime();
        long deadline = restartedAt + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS + 5_000);
        while (waiters.stream().anyMatch(w -> !w.isDone()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        for (LockOwner owner : owners) {
            long lost = awaitLoss(holders, owner, restartedAt + TimeUnit.SECONDS.toNanos(3));
            if (lost == 0) {
                outcome.lossNotReported++;
            }
            else {
                outcome.lostAfterRestart.add(TimeUnit.NANOSECONDS.toMillis(lost - restartedAt));
            }
        }
        release.complete(null);
        List<CompletableFuture<Boolean>> fresh = new ArrayList<>();
        for (String key : keys) {
            fresh.add(holders.attempt(holderClient, key, null, 1, 5));
        }
        for (CompletableFuture<Boolean> attempt : fresh) {
            outcome.fresh++;
            outcome.freshGranted += attempt.get(WAIT_MILLIS + 5_000, TimeUnit.MILLISECONDS) ? 1 : 0;
        }
        outcome.holds += KEYS;
        outcome.trials++;
        System.out.printf("scenario 16 restart trial %s: losses heard %s ms after the restart%n", prefix,
                outcome.lostAfterRestart.subList(Math.max(0, outcome.lostAfterRestart.size() - KEYS),
                        outcome.lostAfterRestart.size()));
        return keys;
    }

    /**
     * Returns right after the watchdog renewed {@code key} (its PTTL went up): killed now, Redis is back before the
     * next renewal, and the holders believe they hold for as long as they can.
     */
    private static void awaitRenewal(RedisServerExtension redis, String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * RENEWAL_MILLIS);
        long last = redis.commands().pttl(key);
        while (System.nanoTime() < deadline) {
            Thread.sleep(2);
            long now = redis.commands().pttl(key);
            if (now > last) {
                return;
            }
            last = now;
        }
    }

    /** How long, at most, the first holder of a lock still believed it held once the next one was granted, ms. */
    private static long longestDoubleBelief(History history) {
        Map<String, List<History.Hold>> byKey = history.holds().stream()
                .collect(Collectors.groupingBy(History.Hold::key));
        long longest = 0;
        for (List<History.Hold> holds : byKey.values()) {
            holds.sort(Comparator.comparingLong(History.Hold::acquiredNanos));
            if (holds.size() > 1) {
                longest = Math.max(longest, holds.get(0).releaseNanos() - holds.get(1).acquiredNanos());
            }
        }
        return TimeUnit.NANOSECONDS.toMillis(longest);
    }

    private static long awaitLoss(AsyncHolders holders, LockOwner owner, long deadline) throws InterruptedException {
        while (holders.lostAt(owner) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return holders.lostAt(owner);
    }
}
