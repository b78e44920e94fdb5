package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.relock.core.CommandStats;
import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Scenario 16, phase 1: asynchronous holders and waiters of three clients reach Redis through a
 * {@link ChaosProxy}, which drops every connection (commands and pub/sub) every 200-500 ms, mid-hold and
 * mid-wait, and besides cuts a connection right after the reply to a release that leaves one hold of two, so
 * that the release reaches Redis again. Afterwards nothing may be left: no overlap, no pending future, no hold
 * in Redis or in a client, no subscription, no renewal.
 */
final class AsyncConnectionCut {

    static final int CLIENTS = 3;
    static final int CALLERS = 6; // per client, each one call after another
    static final int KEYS = 3;
    static final long WAIT_MILLIS = 2_000;
    static final long WATCHDOG_MILLIS = 900;
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
    /** An attempt in flight when the wait ends may take up to the command timeout (see tryLockAsync); 0.5 s more. */
    static final long SLACK_MILLIS = COMMAND_TIMEOUT.toMillis() + 500;

    /** What a run found; {@code failures} are outcomes other than granted, timed out or released. */
    record Outcome(long calls, long granted, long timedOut, Map<String, Long> failures, int cuts, int replyCuts,
            Stats latency, long pending, History.Sweep sweep, long lostUpdates, long staleAccepted,
            long losses, List<String> holdsLeft, long heldLocally, long subscriptionsLeft, long renewalsAfter) {

        long late() {
            return latency.max() > WAIT_MILLIS + SLACK_MILLIS ? 1 : 0;
        }

        long violations() {
            return sweep.overlaps() + lostUpdates + staleAccepted + sweep.tokenRegressions() + pending + late()
                    + failures.values().stream().mapToLong(Long::longValue).sum() + losses + holdsLeft.size()
                    + heldLocally + subscriptionsLeft + renewalsAfter;
        }

        String figures() {
            return String.format(Locale.ROOT, "cut: %d drops of every connection and %d cuts right after an inner "
                            + "release's reply; %,d tryLockAsync (%,d granted, %,d timed out), other outcomes %s; "
                            + "%d overlaps, %d lost updates, %d stale writes accepted; slowest future %d ms of its %d ms "
                            + "wait, %d pending; %d losses; afterwards %d holds in Redis, %d in the clients, %d "
                            + "subscriptions, %d renewals", cuts, replyCuts, calls, granted, timedOut,
                    failures.isEmpty() ? "none" : failures, sweep.overlaps(), lostUpdates, staleAccepted, latency.max(),
                    WAIT_MILLIS, pending, losses, holdsLeft.size(), heldLocally, subscriptionsLeft, renewalsAfter);
        }
    }

    private AsyncConnectionCut() {
    }

    static Outcome run(RedisServerExtension redis, String prefix, Duration length) throws Exception {
        List<String> keys = LockHashes.numbered(prefix + "-", KEYS);
        List<RedisLockClient> clients = new ArrayList<>();
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                AsyncHolders holders = new AsyncHolders(WAIT_MILLIS)) {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(RedisLockClient.builder(factories.standalone(proxy.port(), COMMAND_TIMEOUT))
                        .watchdogTimeout(Duration.ofMillis(WATCHDOG_MILLIS)).lockLostListener(holders.listener())
                        .build());
            }
            try {
                long end = System.nanoTime() + length.toNanos();
                for (RedisLockClient client : clients) {
                    for (int i = 0; i < CALLERS; i++) {
                        holders.repeat(() -> call(holders, client, keys), end);
                    }
                }
                int cuts = cut(proxy, clients.get(0), keys, end);
                long pending = holders.pending(WAIT_MILLIS + 5_000);
                proxy.disarm();
                RedisCommands<String, String> truth = redis.commands(); // past the proxy
                List<String> left = LockHashes.left(truth, clients.get(0), keys);
                long heldLocally = clients.stream().mapToLong(c -> c.heldLocks().size()).sum();
                long subscribed = LockHashes.subscribers(truth, clients.get(0), keys, 2_000);
                long scripts = scriptCalls(truth);
                Thread.sleep(WATCHDOG_MILLIS); // three renewal intervals, every client idle
                long renewals = scriptCalls(truth) - scripts;
                FencedResource resource = holders.resource();
                CallOutcomes calls = holders.outcomes();
                Outcome outcome = new Outcome(calls.latencies().count(), calls.count("granted"), calls.count("timed out"),
                        calls.otherThan(List.of("granted", "timed out")), cuts, proxy.cuts(), calls.latencies(),
                        pending, holders.history().sweep(),
                        resource.lostUpdates(), resource.staleAccepted(), holders.losses(), left, heldLocally,
                        subscribed, renewals);
                System.out.printf("scenario 16 cut %s: %s; %s; latency %s%n", prefix, outcome.figures(), resource,
                        outcome.latency());
                return outcome;
            }
            finally {
                clients.forEach(RedisLockClient::close);
            }
        }
    }

    /** One caller's turn: a random key, lease (watchdog or fixed) and depth; mostly short holds, some past a renewal. */
    private static CompletableFuture<?> call(AsyncHolders holders, RedisLockClient client, List<String> keys) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Duration lease = random.nextBoolean() ? null : Duration.ofSeconds(2);
        long hold = random.nextInt(20) == 0 ? 350 + random.nextInt(300) : 2 + random.nextInt(8);
        return holders.attempt(client, keys.get(random.nextInt(keys.size())), lease, 1 + random.nextInt(2), hold);
    }

    /**
     * Until {@code end}: every 200-500 ms, drops every connection; in between, keeps the proxy armed to cut right
     * after the reply to an inner release (holds before it: 2) of one key after another. Returns the drops.
     */
    private static int cut(ChaosProxy proxy, RedisLockClient client, List<String> keys, long end)
            throws InterruptedException {
        int cuts = 0;
        int armed = 0;
        long nextCut = System.nanoTime();
        while (System.nanoTime() < end) {
            if (!proxy.isArmed()) {
                String channel = client.redisKeys(keys.get(armed++ % keys.size())).releaseChannel();
                // the release's arguments: ... holds before ("2"), then the channel (see release.lua)
                proxy.cutAfterReplyTo("$1\r\n2\r\n$" + channel.length() + "\r\n" + channel);
            }
            if (System.nanoTime() >= nextCut) {
                proxy.cutAll();
                cuts++;
                nextCut = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200 + ThreadLocalRandom.current().nextInt(300));
            }
            Thread.sleep(50);
        }
        return cuts;
    }

    /** Script calls Redis has run: with every client idle, only a renewal that did not stop adds to them. */
    private static long scriptCalls(RedisCommands<String, String> redis) {
        return CommandStats.calls(redis, "evalsha") + CommandStats.calls(redis, "eval");
    }
}
