package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 16, phase 2: child JVMs take {@value #LOCKS} locks each through the asynchronous API (half with a
 * fixed 2 s lease, half with a 2 s watchdog), asynchronous waiters of two clients in this JVM wait for each,
 * and the children are SIGKILLed. The first waiter of each lock must get it within lease + 300 ms of the kill
 * (p99), and never before the lease ends in Redis: PTTL read right after the kill, at t, bounds the lease end
 * from below by t + PTTL, on the machine's one monotonic clock.
 */
final class AsyncHolderKill {

    static final int LOCKS = 6;
    static final long LEASE_MILLIS = 2_000;
    static final long SLACK_MILLIS = 300;
    static final long WAIT_MILLIS = 3 * LEASE_MILLIS;

    /** What the kills found. */
    static final class Outcome {
        final List<Long> killToGrant = new ArrayList<>();
        final List<Long> afterLeaseEnd = new ArrayList<>();
        int kills;
        long early;
        long notGranted;
        long voided;
        long pending;
        long subscriptionsLeft;
        History.Sweep sweep = new History.Sweep(0, 0, 0, 0);

        long late() {
            return killToGrant.stream().filter(ms -> ms > LEASE_MILLIS + SLACK_MILLIS).count();
        }

        long violations() {
            return early + notGranted + pending + subscriptionsLeft + sweep.overlaps() + sweep.tokenRegressions()
                    + (new Stats(killToGrant).percentile(99) > LEASE_MILLIS + SLACK_MILLIS ? 1 : 0);
        }

        String figures() {
            Stats grant = new Stats(killToGrant);
            return String.format(Locale.ROOT, "JVM killed: %d async holds in %d JVMs; first async waiter in %d (p50) / "
                            + "%d (p99) ms after the kill, %d ms at p99 after the lease end, %d before it, %d overlaps; %d "
                            + "not granted, %d futures pending, %d subscriptions left%s", killToGrant.size(), kills,
                    grant.percentile(50), grant.percentile(99), new Stats(afterLeaseEnd).percentile(99), early,
                    sweep.overlaps(), notGranted, pending, subscriptionsLeft,
                    voided > 0 ? "; " + voided + " void (the lease ended before the kill)" : "");
        }
    }

    private AsyncHolderKill() {
    }

    /** Child JVMs holding {@value #LOCKS} locks each, named {@code <prefix><child>-<i>}. */
    static Outcome run(RedisServerExtension redis, String prefix, int children) throws Exception {
        List<ChildJvm> holders = new ArrayList<>();
        List<RedisLockClient> clients = new ArrayList<>();
        try (AsyncHolders waiters = new AsyncHolders(WAIT_MILLIS)) {
            for (int c = 0; c < children; c++) {
                ChildJvm child = ChildJvm.start(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                        ReliabilityChild.class, "mode=hold-async", "port=" + redis.server().port(),
                        "name=" + prefix + c, "count=" + LOCKS, "lease=" + LEASE_MILLIS, "watchdog=" + LEASE_MILLIS);
                holders.add(child);
                Processes.lowerPriority(child.pid()); // booting, it stays out of the way of what is measured
            }
            clients.add(RedisLockClient.builder(redis.newConnectionFactory()).build());
            clients.add(RedisLockClient.builder(redis.newConnectionFactory()).build());
            List<long[][]> held = new ArrayList<>(); // per child, per lock: {token, acquired, invoked}
            for (ChildJvm child : holders) {
                child.awaitLine(line -> line.equals("READY"), Duration.ofSeconds(60));
            }
            for (ChildJvm child : holders) {
                // all at once: a child that took its locks while another booted could see its leases end
                Processes.normalPriority(child.pid());
                child.send("acquire");
            }
            for (int c = 0; c < children; c++) {
                long[][] locks = new long[LOCKS][];
                for (int i = 0; i < LOCKS; i++) {
                    String[] f = holders.get(c).awaitLine(l -> l.startsWith("HELD-ASYNC "), Duration.ofSeconds(30))
                            .split(" ");
                    locks[Integer.parseInt(f[1])] = new long[] {Long.parseLong(f[2]), Long.parseLong(f[3]),
                            Long.parseLong(f[4])};
                }
                held.add(locks);
                for (int i = 0; i < LOCKS; i++) {
                    for (RedisLockClient client : clients) {
                        waiters.attempt(client, prefix + c + "-" + i, Duration.ofSeconds(1), 1, 20);
                    }
                }
            }
            Thread.sleep(150); // the waiters are asleep in their waits
            List<long[][]> killed = new ArrayList<>(); // per child, per lock: {killed, pttl read at, pttl}
            for (int c = 0; c < children; c++) {
                holders.get(c).kill();
                long killedAt = System.nanoTime();
                long[][] leases = new long[LOCKS][];
                for (int i = 0; i < LOCKS; i++) {
                    long readAt = System.nanoTime();
                    String key = clients.get(0).redisKeys(prefix + c + "-" + i).lock();
                    leases[i] = new long[] {killedAt, readAt, redis.commands().pttl(key)};
                }
                killed.add(leases);
            }
            Outcome outcome = new Outcome();
            outcome.kills = children;
            outcome.pending = waiters.pending(WAIT_MILLIS + 5_000);
            outcome.notGranted = waiters.outcomes().latencies().count() - waiters.outcomes().count("granted");
            List<String> names = new ArrayList<>();
            for (int c = 0; c < children; c++) {
                names.addAll(LockHashes.numbered(prefix + c + "-", LOCKS));
            }
            outcome.subscriptionsLeft = LockHashes.subscribers(redis.commands(), clients.get(0), names, 2_000);
            for (int c = 0; c < children; c++) {
                for (int i = 0; i < LOCKS; i++) {
                    judge(outcome, waiters.history(), "holder-jvm-" + holders.get(c).pid(), prefix + c + "-" + i,
                            held.get(c)[i], killed.get(c)[i]);
                }
            }
            outcome.sweep = waiters.history().sweep();
            System.out.printf("scenario 16 kill %s: %s; kill to grant %s; after the lease end %s%n", prefix,
                    outcome.figures(), new Stats(outcome.killToGrant), new Stats(outcome.afterLeaseEnd));
            return outcome;
        }
        finally {
            holders.forEach(ChildJvm::close);
            clients.forEach(RedisLockClient::close);
        }
    }

    /** Compares the first waiter's grant with the kill and the lease end, and records the dead holder's hold. */
    private static void judge(Outcome outcome, History history, String holder, String name, long[] held,
            long[] killed) {
        long granted = history.holds().stream().filter(h -> h.key().equals(name))
                .mapToLong(History.Hold::acquiredNanos).min().orElse(Long.MAX_VALUE);
        long killedAt = killed[0];
        long readAt = killed[1];
        long pttl = killed[2];
        // the script set the lease after the child invoked it; the PTTL read at t says t + PTTL or later
        long leaseEnd = held[2] + TimeUnit.MILLISECONDS.toNanos(LEASE_MILLIS);
        boolean valid = pttl > 0 && granted > readAt && granted != Long.MAX_VALUE;
        if (valid) {
            leaseEnd = Math.max(leaseEnd, readAt + TimeUnit.MILLISECONDS.toNanos(pttl));
        }
        history.record(holder, "main", name, held[0], held[1], Math.max(held[1], Math.min(killedAt, leaseEnd)));
        System.out.printf("scenario 16 kill %s: held %d ms before the kill, PTTL %d ms right after it, first waiter in "
                + "%d ms after the kill%n", name, TimeUnit.NANOSECONDS.toMillis(killedAt - held[1]), pttl,
                TimeUnit.NANOSECONDS.toMillis(granted - killedAt));
        if (granted == Long.MAX_VALUE) {
            return; // counted as not granted
        }
        if (granted < leaseEnd - TimeUnit.MILLISECONDS.toNanos(2)) {
            outcome.early++; // before even the lower bound of the lease end
        }
        if (!valid) {
            outcome.voided++; // the lease ended before the kill (or the lock was taken before it): no timing
            return;
        }
        outcome.killToGrant.add(TimeUnit.NANOSECONDS.toMillis(granted - killedAt));
        outcome.afterLeaseEnd.add(TimeUnit.NANOSECONDS.toMillis(granted - leaseEnd));
    }
}
