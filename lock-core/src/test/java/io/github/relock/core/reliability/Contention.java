package io.github.relock.core.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * Threads of several clients take locks on a few keys, re-entering to a random depth, and do an
 * unprotected read-modify-write on a {@link FencedResource} inside; every outermost hold goes into a
 * {@link History}. Runs until a number of acquisitions is reached or a deadline passes.
 */
final class Contention {

    /** Lock handle for a client and a key index; the real lock is {@code client.getLock("<prefix><key>")}. */
    interface LockFactory extends BiFunction<RedisLockClient, Integer, ReentrantDistributedLock> {
    }

    record Result(long acquisitions, long timeouts, long errors, long millis, History.Sweep sweep, long lostUpdates,
                  long staleAccepted, long currentRefused, List<Throwable> sampleErrors) {

        long violations() {
            return sweep.overlaps() + lostUpdates + staleAccepted + currentRefused + sweep.tokenRegressions();
        }

        double perSecond() {
            return millis == 0 ? 0 : acquisitions * 1000.0 / millis;
        }
    }

    private final List<RedisLockClient> clients;
    private final int threadsPerClient;
    private final int keys;
    private final String keyPrefix;
    private final History history = new History();
    private final FencedResource resource = new FencedResource();
    private volatile boolean stopped;

    Contention(List<RedisLockClient> clients, int threadsPerClient, int keys, String keyPrefix) {
        this.clients = clients;
        this.threadsPerClient = threadsPerClient;
        this.keys = keys;
        this.keyPrefix = keyPrefix;
    }

    History history() {
        return history;
    }

    /** Ends a run early: each thread finishes its current acquisition. */
    void stop() {
        stopped = true;
    }

    Result run(long acquisitions, long deadlineNanos, long waitMillis, LockFactory lockFor) throws Exception {
        AtomicLong remaining = new AtomicLong(acquisitions);
        AtomicLong done = new AtomicLong();
        AtomicLong timeouts = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<Throwable> sample = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(clients.size() * threadsPerClient);
        long start = System.nanoTime();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (RedisLockClient client : clients) {
                for (int t = 0; t < threadsPerClient; t++) {
                    workers.add(pool.submit(() -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        String thread = Thread.currentThread().getName();
                        long seq = 0;
                        while (!stopped && remaining.getAndDecrement() > 0 && System.nanoTime() < deadlineNanos) {
                            int keyIndex = random.nextInt(keys);
                            String key = keyPrefix + keyIndex;
                            ReentrantDistributedLock lock = lockFor.apply(client, keyIndex);
                            int depth = 1 + random.nextInt(3);
                            int held = 0;
                            long acquiredAt = 0;
                            long token = 0;
                            try {
                                if (!lock.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
                                    timeouts.incrementAndGet();
                                    continue;
                                }
                                acquiredAt = System.nanoTime();
                                held = 1;
                                token = lock.fencingToken();
                                String holdId = client.getClientId() + "/" + thread + "#" + seq++;
                                resource.granted(key, holdId);
                                while (held < depth) {
                                    lock.lock();
                                    held++;
                                }
                                long value = resource.read(key);
                                Thread.yield(); // widen the read-modify-write window: overlaps then lose updates
                                resource.write(key, holdId, token, value + 1);
                                done.incrementAndGet();
                            }
                            catch (RuntimeException ex) {
                                errors.incrementAndGet();
                                if (sample.size() < 5) {
                                    sample.add(ex);
                                    if (Boolean.getBoolean("relock.debug")) {
                                        ex.printStackTrace(System.out);
                                    }
                                }
                            }
                            finally {
                                for (; held > 1; held--) {
                                    unlockQuietly(lock, errors, sample);
                                }
                                if (held == 1) {
                                    long releaseAt = System.nanoTime();
                                    unlockQuietly(lock, errors, sample);
                                    history.record(client.getClientId(), thread, key, token, acquiredAt, releaseAt);
                                }
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> worker : workers) {
                long left = Math.max(1, deadlineNanos - System.nanoTime()) + TimeUnit.SECONDS.toNanos(60);
                worker.get(left, TimeUnit.NANOSECONDS);
            }
        }
        finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new Result(done.get(), timeouts.get(), errors.get(), millis, history.sweep(), resource.lostUpdates(),
                resource.staleAccepted(), resource.currentRefused(), List.copyOf(sample));
    }

    private static void unlockQuietly(ReentrantDistributedLock lock, AtomicLong errors, List<Throwable> sample) {
        try {
            lock.unlock();
        }
        catch (RuntimeException ex) {
            errors.incrementAndGet();
            if (sample.size() < 5) {
                sample.add(ex);
            }
        }
    }
}
