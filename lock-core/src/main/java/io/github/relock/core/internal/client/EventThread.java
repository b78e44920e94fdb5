package io.github.relock.core.internal.client;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The client's thread for work that may block and must not hold up its scheduler: telling the lost-lock listeners
 * (when the user gave no executor of their own) and opening the pub/sub connection (whose driver call waits for
 * Redis). One task after another; it starts on demand and ends when idle, so a client that loses no lock and makes
 * no wait has none. A listener that blocks holds up later tasks, never the renewals or the owner's own calls.
 */
final class EventThread implements AutoCloseable {

    private static final long IDLE_SECONDS = 10;
    /** How long close() waits for the thread to end: a task that runs longer is left to end. */
    private static final long CLOSE_WAIT_MILLIS = 1_000;

    private final ThreadPoolExecutor executor;
    private final String threadName;
    /** The threads started, joined by close(): the executor counts itself terminated just before they exit. */
    private final Set<Thread> started = ConcurrentHashMap.newKeySet();

    /** @param name the thread's name; a thread started again after idling gets the same */
    EventThread(String name) {
        this.threadName = name;
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true); // a forgotten client must not keep the JVM alive
            started.removeIf(old -> old.getState() == Thread.State.TERMINATED); // idle ones end; not yet started ones stay
            started.add(thread);
            return thread;
        };
        executor = new ThreadPoolExecutor(1, 1, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
        executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Runs {@code task} on the thread, after those handed over before.
     *
     * @throws RejectedExecutionException once the client is closed
     */
    void execute(Runnable task) {
        executor.execute(task);
    }

    /** Whether the calling thread is this one (a listener runs there). */
    boolean runsOnCurrentThread() {
        return Thread.currentThread().getName().equals(threadName);
    }

    /** {@link #close()}, interrupting what runs (a lost-lock listener that waits, an opening), unless closed from there. */
    void closeNow() {
        if (!runsOnCurrentThread()) {
            executor.shutdownNow();
        }
        close();
    }

    /**
     * Takes no new events and waits up to {@value #CLOSE_WAIT_MILLIS} ms for the thread to end (an idle one ends
     * at once; a task that runs finishes first), so that none outlives the client.
     */
    @Override
    public void close() {
        executor.shutdown();
        if (runsOnCurrentThread()) {
            return; // closed from this thread: it cannot wait for itself
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
