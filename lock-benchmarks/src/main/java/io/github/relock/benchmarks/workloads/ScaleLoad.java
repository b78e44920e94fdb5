package io.github.relock.benchmarks.workloads;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;
import io.github.relock.benchmarks.redis.CommandStats;
import io.github.relock.benchmarks.report.ScaleResult;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;

/**
 * The {@code scale} group (not run by default, about 5 minutes for relock and Redisson): S1 holds
 * 100,000 watchdog locks ({@code --s1-locks}) on one client and measures what each costs in the JVM and in Redis and what
 * renewing them costs; S3 locks 1,000,000 distinct keys ({@code --s3-keys}) once each from 16 threads and compares the heap
 * at a tenth of them with the heap at the end, so a cache that grows with the keys shows. S2, the group's third
 * part, is {@link ManyWaiters}.
 */
public final class ScaleLoad {

    private static final int THREADS = 16;

    public ScaleResult run(LockLibrary library, RunContext context) {
        if (!library.hasWatchdog()) {
            return new ScaleResult(library.id(), 0, Double.NaN, Double.NaN, Double.NaN, List.of(), Double.NaN, Double.NaN, 0, 0, Double.NaN,
                    Double.NaN, "skipped: " + library.noWatchdogReason());
        }
        context.settle();
        Duration timeout = context.options().watchdogTimeout();
        int held = context.options().s1Locks();
        int churn = context.options().s3Keys();
        try (LockClient client = library.connect(context.target(), timeout)) {
            String names = context.freshNames("s1");
            client.lock(names + "-warm").lock(); // the client's own structures exist before the baseline
            client.lock(names + "-warm").unlock();
            long heapBefore = heapAfterGc();
            long redisBefore = usedMemory(context);
            for (int i = 0; i < held; i++) {
                client.lock(names + "-" + i).lock(); // the handle is dropped: only the library's bookkeeping stays
            }
            double heapPerHold = (heapAfterGc() - heapBefore) / (double) held;
            double redisPerLock = (usedMemory(context) - redisBefore) / (double) held;
            Set<String> keys = new HashSet<>();
            ScanIterator.scan(context.admin().commands(), ScanArgs.Builder.limit(1000)).forEachRemaining(keys::add);
            List<KeyShapes.Shape> shapes = KeyShapes.of(context.admin().commands(), keys,
                    Pattern.compile(Pattern.quote(names + "-") + "(\\d+|warm)"));
            sleep(timeout.toMillis() / 3 + 200); // one renewal period, so renewal is in its rhythm
            CommandStats before = context.admin().commandStats();
            long start = System.nanoTime();
            sleep(context.options().watchdogDuration().toMillis());
            double seconds = (System.nanoTime() - start) / 1e9;
            CommandStats calls = context.admin().commandStats().minus(before);
            long topLevel = calls.calls().getOrDefault("evalsha", 0L) + calls.calls().getOrDefault("eval", 0L);
            long lost = 0;
            for (int i = 0; i < held; i++) {
                try {
                    client.lock(names + "-" + i).unlock();
                }
                catch (RuntimeException ex) {
                    lost++;
                }
            }
            long[] heap = churn(client, context.freshNames("s3"), churn);
            return new ScaleResult(library.id(), held, heapPerHold, redisPerLock,
                    KeyShapes.bytes(shapes) / held, KeyShapes.describe(shapes, held, "lock"), calls.total() / seconds,
                    topLevel / seconds, lost, churn, heap[0] / 1024.0, heap[1] / 1024.0, "");
        }
        catch (Exception ex) {
            throw new IllegalStateException(library.id() + " scale run failed", ex);
        }
    }

    /** S3: heap after GC at a tenth of the keys and at all of them. */
    private static long[] churn(LockClient client, String names, int keys) throws InterruptedException {
        long[] heap = new long[2];
        AtomicLong next = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            int[] marks = {keys / 10, keys};
            for (int m = 0; m < marks.length; m++) {
                long mark = marks[m];
                CountDownLatch done = new CountDownLatch(THREADS);
                for (int t = 0; t < THREADS; t++) {
                    threads.execute(() -> {
                        try {
                            for (long i = next.getAndIncrement(); i < mark; i = next.getAndIncrement()) {
                                LockLibrary.BenchLock lock = client.lock(names + "-" + i);
                                lock.lock();
                                lock.unlock();
                            }
                        }
                        finally {
                            done.countDown();
                        }
                    });
                }
                done.await();
                next.set(mark);
                heap[m] = heapAfterGc();
            }
        }
        finally {
            threads.shutdownNow();
        }
        return heap;
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long usedMemory(RunContext context) {
        for (String line : context.admin().info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).strip());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
