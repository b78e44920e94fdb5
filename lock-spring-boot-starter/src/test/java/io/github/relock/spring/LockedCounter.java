package io.github.relock.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bean whose one {@code @DistributedLock} method counts the calls that found another call inside: with the lock
 * taken, none does.
 */
public class LockedCounter {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger();

    @DistributedLock(name = "counter", key = "#id")
    public void count(String id) throws InterruptedException {
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        Thread.sleep(2);
        calls.incrementAndGet();
        inside.decrementAndGet();
    }

    public int overlaps() {
        return overlaps.get();
    }

    public int calls() {
        return calls.get();
    }

    /** 8 threads call {@code count} on one key {@code callsEach} times each; returns the overlaps seen. */
    public static int overlapsOf(LockedCounter counter, int callsEach) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                running.add(threads.submit(() -> {
                    for (int i = 0; i < callsEach; i++) {
                        counter.count("one");
                    }
                    return null;
                }));
            }
            for (Future<?> call : running) {
                call.get(30, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
        return counter.overlaps();
    }
}
