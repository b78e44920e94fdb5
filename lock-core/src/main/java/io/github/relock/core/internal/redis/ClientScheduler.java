package io.github.relock.core.internal.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A client's one timer thread: renewal rounds, wait timers, sends again after a refusal, and the short
 * chores that must not run on Lettuce's event loop (giving a pooled connection back). Nothing run here waits for
 * Redis. The thread starts with the first task and ends when idle for a while, or at {@link #close()}.
 */
public final class ClientScheduler implements Executor, AutoCloseable {

    private static final long IDLE_SECONDS = 10;
    private static final long CLOSE_WAIT_MILLIS = 1_000;

    private final ScheduledThreadPoolExecutor executor;
    private final String threadName;
    /** The threads started, joined by close(): the executor counts itself terminated just before its thread exits. */
    private final Set<Thread> started = ConcurrentHashMap.newKeySet();
    /** Sends scheduled with {@link #scheduleSend} that have not run: close() ends them instead of dropping them. */
    private final Set<PendingSend> pendingSends = ConcurrentHashMap.newKeySet();

    public ClientScheduler(String threadName) {
        this.threadName = threadName;
        executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true); // a forgotten client must not keep the JVM alive
            started.removeIf(old -> old.getState() == Thread.State.TERMINATED); // one that ended idle
            started.add(thread);
            return thread;
        });
        executor.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        executor.allowCoreThreadTimeOut(true);
        executor.setRemoveOnCancelPolicy(true); // cancelled timers of finished waits do not pile up
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Runs {@code task} soon on the scheduler thread.
     *
     * @throws RejectedExecutionException once closed
     */
    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /**
     * Runs {@code task} after {@code nanos}; a closed scheduler runs nothing.
     *
     * @throws RejectedExecutionException once closed
     */
    public ScheduledFuture<?> schedule(Runnable task, long nanos) {
        return executor.schedule(task, nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code send} after {@code nanos}, or {@code ifClosed} at {@link #close()} if it has not run by then: for a
     * call sent again after a pause, whose caller waits on a future that only the send completes. A close must end
     * such a future, not drop it with the other timers. Exactly one of the two runs.
     *
     * @throws RejectedExecutionException once closed
     */
    public void scheduleSend(Runnable send, long nanos, Runnable ifClosed) {
        PendingSend pending = new PendingSend(send, ifClosed);
        pendingSends.add(pending);
        try {
            executor.schedule(pending::send, nanos, TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException closed) {
            pendingSends.remove(pending);
            throw closed;
        }
    }

    /** A send that either runs or, at close, is ended by {@code ifClosed}, whichever comes first. */
    private final class PendingSend {

        private final Runnable send;
        private final Runnable ifClosed;

        PendingSend(Runnable send, Runnable ifClosed) {
            this.send = send;
            this.ifClosed = ifClosed;
        }

        void send() {
            if (pendingSends.remove(this)) {
                send.run();
            }
        }

        void end() {
            if (pendingSends.remove(this)) {
                ifClosed.run();
            }
        }
    }

    /** Whether the calling thread is the scheduler's. */
    public boolean runsOnCurrentThread() {
        return Thread.currentThread().getName().equals(threadName);
    }

    public boolean isClosed() {
        return executor.isShutdown();
    }

    /**
     * Drops the timers, ends the sends scheduled with {@link #scheduleSend} that have not run, runs what is already due
     * (connections waiting to be given back to a pool), and waits up to a second for the thread to end, unless called
     * from it.
     */
    @Override
    public void close() {
        executor.shutdown(); // drops the timers; what is due runs (connections waiting to be given back)
        pendingSends.forEach(PendingSend::end);
        if (runsOnCurrentThread()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        try {
            executor.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            executor.shutdownNow();
            for (Thread thread : started) {
                TimeUnit.NANOSECONDS.timedJoin(thread, Math.max(1, deadline - System.nanoTime()));
            }
        }
        catch (InterruptedException ex) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
