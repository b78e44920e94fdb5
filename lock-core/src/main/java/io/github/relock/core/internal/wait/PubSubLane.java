package io.github.relock.core.internal.wait;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a client's calls on its pub/sub connection (subscribing, unsubscribing) on its {@link AsyncRunner}, one
 * at a time and in order, never on a waiter's thread: a connection that does not answer ties up one of the
 * runner's threads until the command timeout, not the waiters, and not every thread the asynchronous calls need.
 */
public final class PubSubLane implements Executor {

    private static final Logger log = LoggerFactory.getLogger(PubSubLane.class);

    /** Null: run each task at once on the caller's thread (subscriptions made without a client). */
    private final @Nullable AsyncRunner runner;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Tasks queued and not yet run; the one who takes it from 0 starts the drain. */
    private final AtomicInteger pending = new AtomicInteger();
    private volatile @Nullable Thread draining;

    PubSubLane(@Nullable AsyncRunner runner) {
        this.runner = runner;
    }

    /**
     * @throws RejectedExecutionException once the client is closed (a task queued behind a running one is then
     *                                    dropped, if the drain ends first; its waiter sees the client closed)
     */
    @Override
    public void execute(Runnable task) {
        if (runner == null) {
            task.run();
            return;
        }
        tasks.add(task);
        if (pending.getAndIncrement() == 0) {
            try {
                runner.execute(this::drain);
            }
            catch (RejectedExecutionException ex) {
                tasks.remove(task);
                pending.decrementAndGet();
                throw ex;
            }
        }
    }

    /** Whether the calling thread runs the lane's tasks right now (it must not wait for a task queued behind). */
    boolean runsOnCurrentThread() {
        return draining == Thread.currentThread();
    }

    private void drain() {
        do {
            Runnable task = tasks.poll();
            if (task == null) {
                continue; // run by the drain before: it was queued before it was counted
            }
            draining = Thread.currentThread();
            try {
                task.run();
            }
            catch (Throwable ex) {
                // nothing may stop the lane, or no task queued behind would ever run; a task reports its own failures,
                // but not an Error it did not expect
                if (ex instanceof RuntimeException) {
                    log.debug("A pub/sub call failed", ex);
                }
                else {
                    log.warn("A pub/sub call failed; the calls queued behind it still run", ex);
                }
            }
            finally {
                draining = null;
            }
        } while (pending.decrementAndGet() != 0);
    }
}
