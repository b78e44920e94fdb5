package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockLostListener;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * Lock users of the asynchronous API (scenario 16). Each takes a lock for an owner of its own with
 * {@code tryLockAsync}, works in a {@link FencedResource} once the future completes (it shows its fencing token
 * at the grant and writes with it later) and gives the lock back with {@code unlockAsync}. No thread waits for
 * a lock: the pauses of the work run on a timer of this class, never on the client's few threads.
 *
 * <p>Every future the lock hands out is kept and every {@code tryLockAsync} is timed against its wait, so that
 * one left pending shows. Every hold goes into a {@link History}, believed from its grant until its release was
 * asked for or its loss was reported, whichever came first.
 */
final class AsyncHolders implements AutoCloseable {

    private final long waitMillis;
    private final History history = new History();
    private final FencedResource resource = new FencedResource();
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, task -> {
        Thread thread = new Thread(task, "async-holders");
        thread.setDaemon(true);
        return thread;
    });
    private final Map<String, Long> lostAt = new ConcurrentHashMap<>(); // owner id -> when the loss was reported
    private final Queue<CompletableFuture<?>> futures = new ConcurrentLinkedQueue<>();
    private final CallOutcomes outcomes = new CallOutcomes();

    /** @param waitMillis the wait time of every {@code tryLockAsync} */
    AsyncHolders(long waitMillis) {
        this.waitMillis = waitMillis;
    }

    /** For the clients' builders: a reported loss ends the hold as its owner believes it. */
    LockLostListener listener() {
        return event -> lostAt.putIfAbsent(event.ownerId(), System.nanoTime());
    }

    /**
     * One caller: waits for {@code key}; once granted, re-enters to {@code depth}, holds for {@code holdMillis},
     * gives the inner hold back and stays 20 ms more, writes once and gives the lock back. The result says
     * whether the lock was granted; it never fails.
     */
    CompletableFuture<Boolean> attempt(RedisLockClient client, String key, @Nullable Duration lease, int depth,
            long holdMillis) {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock(key);
        return track("caller", acquire(lock, lease, owner).thenCompose(granted -> {
            if (!granted) {
                return CompletableFuture.completedFuture(false);
            }
            Grant grant = new Grant(client, key, owner);
            CompletableFuture<?> inside = depth == 1 ? later(holdMillis)
                    : track("re-entry", call(() -> lock.tryLockAsync(Duration.ZERO, lease, owner))).thenCompose(in -> {
                        if (!Boolean.TRUE.equals(in)) {
                            outcomes.add("re-entry refused"); // then there is no inner hold to give back
                            return later(holdMillis);
                        }
                        return later(holdMillis)
                                .thenCompose(held -> track("unlockAsync", call(() -> lock.unlockAsync(owner))))
                                .thenCompose(inner -> later(20));
                    });
            return inside.thenCompose(done -> {
                grant.write();
                return release(grant, lock, owner);
            }).thenApply(released -> true);
        })).thenApply(Boolean.TRUE::equals);
    }

    /**
     * Takes {@code key} for {@code owner} with the watchdog and, while it believes it holds it, writes every
     * {@code everyMillis} until {@code release} completes; then gives it back. The result completes at the grant.
     */
    CompletableFuture<Boolean> holdUntil(RedisLockClient client, String key, LockOwner owner, long everyMillis,
            CompletableFuture<Void> release) {
        ReentrantDistributedLock lock = client.getLock(key);
        return track("holder", acquire(lock, null, owner).thenApply(granted -> {
            if (granted) {
                Grant grant = new Grant(client, key, owner);
                ScheduledFuture<?> writes = timer.scheduleAtFixedRate(grant::writeIfBelieved, everyMillis, everyMillis,
                        TimeUnit.MILLISECONDS);
                keep(release.thenCompose(go -> {
                    writes.cancel(false);
                    return release(grant, lock, owner);
                }));
            }
            return granted;
        })).thenApply(Boolean.TRUE::equals);
    }

    /** Calls {@code call} again each time its future completes, until {@code endNanos}. */
    CompletableFuture<Void> repeat(Supplier<CompletableFuture<?>> call, long endNanos) {
        if (System.nanoTime() >= endNanos) {
            return CompletableFuture.completedFuture(null);
        }
        return keep(call.get().thenComposeAsync(done -> repeat(call, endNanos), timer));
    }

    /** Waits until every future handed out so far has completed, at most {@code millis}; how many had not. */
    long pending(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (futures.stream().anyMatch(f -> !f.isDone()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return futures.stream().filter(f -> !f.isDone()).count();
    }

    private CompletableFuture<Boolean> acquire(ReentrantDistributedLock lock, @Nullable Duration lease,
            LockOwner owner) {
        long called = System.nanoTime();
        return track("tryLockAsync", call(() -> lock.tryLockAsync(Duration.ofMillis(waitMillis), lease, owner)))
                .thenApply(granted -> {
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - called);
                    outcomes.latency(millis);
                    if (millis > waitMillis + 100) {
                        System.out.printf("scenario 16: tryLockAsync of %s on %s returned %s after %d ms (wait %d ms)%n",
                                owner, lock.getName(), granted, millis, waitMillis);
                    }
                    if (granted != null) {
                        outcomes.add(granted ? "granted" : "timed out");
                    }
                    return Boolean.TRUE.equals(granted);
                });
    }

    private CompletableFuture<Void> release(Grant grant, ReentrantDistributedLock lock, LockOwner owner) {
        grant.ended();
        return track("unlockAsync", call(() -> lock.unlockAsync(owner)));
    }

    /** Keeps {@code future} for {@link #pending}; as a future that never fails, a failure counted under {@code what}. */
    private <T> CompletableFuture<T> track(String what, CompletableFuture<T> future) {
        keep(future);
        return future.handle((value, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                outcomes.add(what + " failed: " + cause.getClass().getSimpleName());
                System.out.printf("async holders: %s failed: %s%n", what, cause); // the outcome keeps only the type
                return null;
            }
            return value;
        });
    }

    private <T> CompletableFuture<T> keep(CompletableFuture<T> future) {
        futures.add(future);
        return future;
    }

    /** The lock's call; one that throws at once counts as a failed future. */
    private static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private CompletableFuture<Void> later(long millis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        timer.schedule(() -> done.complete(null), millis, TimeUnit.MILLISECONDS);
        return done;
    }

    CallOutcomes outcomes() {
        return outcomes;
    }

    /** Holds whose loss was reported. */
    long losses() {
        return lostAt.size();
    }

    /** When {@code owner}'s loss was reported, or 0. */
    long lostAt(LockOwner owner) {
        return lostAt.getOrDefault(owner.id(), 0L);
    }

    History history() {
        return history;
    }

    FencedResource resource() {
        return resource;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** One hold from its grant: shows its token to the resource at once, then writes with it. */
    private final class Grant {
        private final String client;
        private final String key;
        private final String owner;
        private final long token;
        private final long grantedAt = System.nanoTime();
        private final long value;

        Grant(RedisLockClient client, String key, LockOwner owner) {
            this.client = client.getClientId();
            this.key = key;
            this.owner = owner.id();
            this.token = client.getLock(key, owner).fencingToken();
            resource.grantedWith(key, this.owner, token);
            this.value = resource.read(key);
        }

        /** The read-modify-write whose read came at the grant: another writer in between loses an update. */
        void write() {
            resource.write(key, owner, token, value + 1);
        }

        /** A holder that heard of its loss stops; one that did not yet goes on, and only fencing stops it. */
        void writeIfBelieved() {
            if (!lostAt.containsKey(owner)) {
                resource.write(key, owner, token, resource.read(key) + 1);
            }
        }

        void ended() {
            long end = Math.min(System.nanoTime(), lostAt.getOrDefault(owner, Long.MAX_VALUE));
            history.record(client, owner, key, token, grantedAt, Math.max(grantedAt, end));
        }
    }
}
