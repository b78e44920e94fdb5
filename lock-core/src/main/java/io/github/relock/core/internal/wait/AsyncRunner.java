package io.github.relock.core.internal.wait;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The few threads that run a client's asynchronous lock calls: each runs one Redis round trip at a time and
 * never waits for a lock, since an asynchronous waiter is a wake-up and a timer, not a thread. Threads start
 * on demand and end when idle, so a client that makes no asynchronous call has none. The watchdog's rounds and checks
 * run on the client's scheduler instead.
 */
public final class AsyncRunner implements AutoCloseable {

    /** Round trips in flight at once; Redis answers one at a time anyway, so a few threads keep it busy. */
    static final int THREADS = 4;
    private static final long IDLE_SECONDS = 10;
    /** How long close() waits for the threads to end: a round trip in flight may take longer, and is left to end. */
    private static final long CLOSE_WAIT_MILLIS = 1_000;

    private final ScheduledThreadPoolExecutor executor;
    private final String threadPrefix;
    /** The threads started, joined by close(): the pool counts itself terminated just before they exit. */
    private final Set<Thread> started = ConcurrentHashMap.newKeySet();

    public AsyncRunner(String name) {
        this(name, THREADS);
    }

    public AsyncRunner(String name, int threads) {
        AtomicInteger count = new AtomicInteger();
        this.threadPrefix = name + "-";
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, threadPrefix + count.incrementAndGet());
            thread.setDaemon(true); // a forgotten client must not keep the JVM alive
            started.removeIf(old -> old.getState() == Thread.State.TERMINATED); // idle ones end; not yet started ones stay
            started.add(thread);
            return thread;
        };
        executor = new ScheduledThreadPoolExecutor(threads, factory);
        executor.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        executor.allowCoreThreadTimeOut(true);
        executor.setRemoveOnCancelPolicy(true); // cancelled timers of finished waits do not pile up
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Runs {@code task} on one of the threads.
     *
     * @throws RejectedExecutionException once the client is closed
     */
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /** Runs {@code task} after {@code nanos}; a closed client runs nothing. */
    ScheduledFuture<?> schedule(Runnable task, long nanos) {
        return executor.schedule(task, nanos, TimeUnit.NANOSECONDS);
    }

    /** Whether the calling thread is one of these (a future's callback runs there). */
    public boolean runsOnCurrentThread() {
        return Thread.currentThread().getName().startsWith(threadPrefix);
    }

    /** {@link #close()}, interrupting what runs (a lost-lock listener that waits), unless closed from there. */
    public void closeNow() {
        if (!runsOnCurrentThread()) {
            executor.shutdownNow();
        }
        close();
    }

    /**
     * Takes no new calls, drops the timers, and waits up to {@value #CLOSE_WAIT_MILLIS} ms for the threads to
     * end (idle ones end at once; a running call finishes its round trip), so that none outlives the client.
     */
    @Override
    public void close() {
        executor.shutdown();
        if (runsOnCurrentThread()) {
            return; // closed from one of these threads: it cannot wait for itself
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        try {
            executor.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            for (Thread thread : started) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedJoin(thread, left);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
