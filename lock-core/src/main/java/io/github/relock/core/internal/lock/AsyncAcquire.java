package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.wait.AsyncRunner;
import io.github.relock.core.internal.wait.ReleaseWaiter;


/**
 * One asynchronous wait for a lock: the same attempts as {@link AcquireLoop}, run on the client's
 * {@link AsyncRunner}, with no thread held in between. Between attempts the wait is a {@link ReleaseWaiter}
 * whose wake-up schedules the next attempt, and a timer on the client's scheduler at the holder's remaining lease
 * or the deadline.
 * Wake-ups, timers and a cancelled result are serialised into one step at a time.
 *
 * <p>The result may be completed by its caller at any moment (cancelled, or completed by hand): the wait
 * then ends and its subscription goes; a lock taken meanwhile is given back, never left to its lease.
 *
 * @param <T> the result's type: {@code Boolean} for a timed attempt, {@code Void} for a wait without end
 */
final class AsyncAcquire<T> {

    /** What the lock call needs besides the wait: who takes it, for how long, and what the result says. */
    record Request<T>(Holder holder, long leaseMillis, boolean watchdog, long maxHoldNanos, @Nullable T granted,
            @Nullable T notGranted) {
    }

    private final LockKeys keys;
    private final ClientContext context;
    private final Request<T> request;
    private final Acquisition acquisition;
    private final long deadline;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    /** Wake-ups not yet handled; the step that takes the count from 0 runs them all at once. */
    private final AtomicInteger kicks = new AtomicInteger();
    /** Kicks a step when the client closes: a wait paused between failed subscriptions has no waiter to wake. */
    private final Runnable onClose = this::kick;
    /** Written by one step at a time (see {@link #kick()}); read by {@link #closed} when no step runs. */
    private volatile @Nullable ReleaseWaiter waiter;
    /** The subscription under way, if any: written by one step at a time, like {@link #waiter}. */
    private volatile @Nullable JoinWithin joining;
    private volatile @Nullable ScheduledFuture<?> timer;
    private volatile boolean finished;

    AsyncAcquire(LockKeys keys, ClientContext context, Request<T> request, long waitNanos) {
        this.keys = keys;
        this.context = context;
        this.request = request;
        this.acquisition = new Acquisition(keys, context, waitNanos > 0);
        this.deadline = System.nanoTime() + waitNanos;
    }

    /** Starts the first attempt and returns at once; the result completes when the wait ends. */
    CompletableFuture<T> start() {
        acquisition.started(request.holder());
        context.subscriptions().watchClose(onClose);
        result.whenComplete((value, failure) -> kick()); // a caller that completes it ends the wait at once
        kick();
        return result;
    }

    /** Runs a step soon, unless one is running: that one then runs again. Cheap; never blocks. */
    private void kick() {
        if (kicks.getAndIncrement() != 0) {
            return;
        }
        try {
            context.async().execute(this::steps);
        }
        catch (RejectedExecutionException ex) {
            closed(new IllegalStateException("The RedisLockClient was closed while waiting for lock '"
                    + keys.name() + "'", ex));
        }
    }

    private void steps() {
        int seen;
        do {
            seen = kicks.get();
            if (!finished) {
                step();
            }
        } while (kicks.addAndGet(-seen) != 0);
    }

    private void step() {
        if (result.isDone()) {
            end(false); // its caller completed or cancelled it
            return;
        }
        try {
            context.openCheck().run();
            long stepBack = Math.min(context.subscriptions().stepBackNanos(keys.channel()), deadline - System.nanoTime());
            if (stepBack > 0) {
                later(stepBack); // this client just freed the lock for another one: leave it alone a moment
                return;
            }
            JoinWithin join = joining;
            boolean joinFailed = false;
            if (waiter == null && join != null && !join.pending()) {
                joining = null;
                waiter = join.take(); // subscribed (then the attempt below sees any release before), or not answered
                joinFailed = waiter == null;
            }
            if (waiter != null) {
                waiter.arm(); // a release announced from here on kicks another step
            }
            AcquireReply reply = acquisition.attempt(request.holder(), request.leaseMillis(), request.watchdog(),
                    request.maxHoldNanos());
            if (reply.acquired()) {
                granted();
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                finish(() -> result.complete(request.notGranted())); // nothing left behind once the caller hears
                return;
            }
            long sleep = Math.min(left, AcquireLoop.untilLeaseEnds(reply.value()));
            if (waiter == null) {
                if (joining == null && !joinFailed) {
                    // on the pub/sub lane, not in this step: Redis may not answer it for the whole command timeout
                    joining = new JoinWithin(keys, context, null, request.holder().id(), this::kick, this::kick);
                }
                // nothing announces the release to this wait yet: look again soon (and subscribe again)
                later(Math.min(sleep, AcquireLoop.RESUBSCRIBE_NANOS));
                return;
            }
            later(sleep);
        }
        catch (Throwable failure) {
            // an Error too: the caller hears of it, and what this wait left is cleaned up
            finish(() -> result.completeExceptionally(failure));
        }
    }

    private void later(long nanos) {
        if (timer != null) {
            timer.cancel(false);
        }
        try {
            timer = context.scheduler().schedule(this::kick, nanos); // the step it kicks runs on the runner
        }
        catch (RejectedExecutionException ex) {
            throw new IllegalStateException("The RedisLockClient was closed while waiting for lock '" + keys.name()
                    + "'", ex);
        }
    }

    private void granted() {
        end(true);
        if (!result.complete(request.granted())) {
            // cancelled while the lock was being taken: nobody will release it, so give it back now
            // in the owner's turn: its other calls count levels of the same hold
            context.turns().take(keys, request.holder(), () -> {
                Hold hold = context.holds().get(keys, request.holder().id());
                if (hold != null && !hold.lost()) {
                    new Releases(keys, context).unlock(hold);
                }
                return null;
            });
        }
    }

    /** Ends a wait given up, then tells the caller. */
    private void finish(Runnable tell) {
        try {
            end(false);
        }
        finally {
            tell.run();
        }
    }

    /** Ends the wait: the subscription and timer go, and a wait given up lets the kind undo its queueing. */
    private void end(boolean acquired) {
        if (finished) {
            return; // a release that failed after the grant comes here a second time
        }
        finished = true;
        context.subscriptions().unwatchClose(onClose);
        if (timer != null) {
            timer.cancel(false);
        }
        if (waiter != null) {
            waiter.close();
        }
        abandonJoin();
        acquisition.ended(request.holder(), acquired);
    }

    /** The client closed before a step could run: nothing more may be sent to Redis. */
    private void closed(IllegalStateException failure) {
        if (finished) {
            return;
        }
        finished = true;
        context.subscriptions().unwatchClose(onClose);
        result.completeExceptionally(failure);
        ReleaseWaiter left = waiter;
        if (left != null) {
            left.close(); // the subscriptions are closed too; this only forgets the waiter
        }
        abandonJoin();
        acquisition.ended(request.holder(), true); // counted out, with no call to a closed client's Redis
    }

    private void abandonJoin() {
        JoinWithin join = joining;
        if (join != null) {
            join.abandon();
        }
    }
}
