package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.wait.ReleaseSubscriptions;
import io.github.relock.core.internal.wait.ReleaseWaiter;
import io.github.relock.core.internal.wait.UnansweredLately;


/**
 * The wait for a lock, whatever its kind, for blocking and asynchronous callers alike: try once; if it is busy,
 * join the lock's local waiters and wait until a release is announced, a local releaser hands the lock over, or
 * the holder's lease would end, whichever comes first; try again. A release that gave the wait its hold and
 * announced the hold's token (a read-write lock's waiter let in) ends the wait with no further attempt. No
 * spinning, and a lost announcement costs at most one lease. A subscription Redis did not confirm (a connection
 * cut or timed out) is a wake-up that will not come: the wait looks again after {@link #RESUBSCRIBE_NANOS} and
 * subscribes again, rather than give up.
 *
 * <p>No thread is held at any time: each step sends an attempt and goes on when its reply comes; between attempts
 * the wait is a {@link ReleaseWaiter} whose wake-up starts the next step, and a timer on the client's scheduler.
 * Wake-ups, timers, replies and a cancelled result are serialised into one step at a time; a step runs on whichever
 * thread starts it (the caller's, the driver's on a reply, the scheduler's on a timer) and never blocks it. A
 * blocking caller waits on the result.
 *
 * <p>The result may be completed by its caller at any moment (cancelled, or completed by hand): the wait
 * then ends and its subscription goes; a lock taken meanwhile is given back, never left to its lease.
 *
 * @param <T> the result's type: {@code Boolean} for a timed attempt, {@code Void} for a wait without end
 */
public final class AsyncAcquire<T> {

    /** What the lock call needs besides the wait: who takes it, for how long, and what the result says. */
    record Request<T>(Holder holder, long leaseMillis, boolean watchdog, long maxHoldNanos, @Nullable T granted,
            @Nullable T notGranted, ReleaseWaiter.@Nullable Candidate candidate, Executor completions) {
    }

    /**
     * A wait under way: its result, and when it has settled (ended, and whatever it took after its result was
     * completed by hand or cancelled given back), after which nothing it started changes the caller's holds.
     */
    public record Started<T>(CompletableFuture<T> result, CompletableFuture<Void> settled) {
    }

    /** How soon a wait whose subscription failed looks again, and subscribes again. */
    static final long RESUBSCRIBE_NANOS = UnansweredLately.RESUBSCRIBE_NANOS;

    /** How often to look again when the holder set no lease (a key written by something else). */
    private static final long NO_LEASE_POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LockKeys keys;
    private final Request<T> request;
    /** Whether the caller waits if the lock is busy (see {@link Acquisitions}). */
    private final boolean willWait;
    private final long deadline;
    private final Acquisitions acquisitions;
    private final Releases releases;
    private final ReleaseSubscriptions subscriptions;
    /** The client's timer thread: runs this wait's timers. */
    private final ClientScheduler scheduler;
    /** Throws if the client is closed. */
    private final Runnable openCheck;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    /** Wake-ups not yet handled; the one that takes the count from 0 runs the steps. */
    private final AtomicInteger kicks = new AtomicInteger();
    /** The wake-ups the running step handles: written and read by that step only. */
    private int seen;
    /** Kicks a step when the client closes: a wait paused between failed subscriptions has no waiter to wake. */
    private final Runnable onClose = this::kick;
    /** Written by one step at a time (see {@link #kick()}). */
    private volatile @Nullable ReleaseWaiter waiter;
    /** The subscription under way, if any: written by one step at a time, like {@link #waiter}. */
    private volatile @Nullable JoinWithin joining;
    private volatile @Nullable ScheduledFuture<?> timer;
    private volatile boolean finished;
    /** The token floor of the last attempt that found the lock busy (0: none), and when it was sent. */
    private volatile long lastBusyFloor;
    private volatile long lastBusySent;
    /** When the attempt under way was sent (System.nanoTime). */
    private volatile long sent;

    /** A wait of up to {@code waitNanos} (0: one attempt); see {@link LockWaits}, which starts it. */
    AsyncAcquire(LockKeys keys, Request<T> request, long waitNanos, Acquisitions acquisitions, Releases releases,
            ReleaseSubscriptions subscriptions, ClientScheduler scheduler, Runnable openCheck) {
        this.keys = keys;
        this.request = request;
        this.willWait = waitNanos > 0;
        this.deadline = System.nanoTime() + waitNanos;
        this.acquisitions = acquisitions;
        this.releases = releases;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.openCheck = openCheck;
    }

    /**
     * Sends the first attempt and returns at once; the result completes when the wait ends, on the request's
     * {@code completions} executor.
     */
    Started<T> start() {
        acquisitions.started(keys, request.holder(), willWait);
        subscriptions.watchClose(onClose);
        result.whenComplete((value, failure) -> kick()); // a caller that completes it ends the wait at once
        kick();
        return new Started<>(result, settled);
    }

    /** Runs a step now, unless one is running: that one then runs again. Never blocks. */
    private void kick() {
        if (kicks.getAndIncrement() == 0) {
            steps();
        }
    }

    /** Runs steps while wake-ups came in meanwhile; stops when a step waits for a reply ({@link #resume} goes on). */
    private void steps() {
        do {
            seen = kicks.get();
            if (!finished && step()) {
                return;
            }
        } while (kicks.addAndGet(-seen) != 0);
    }

    /** Called once the reply a step waited for was handled. */
    private void resume() {
        if (kicks.addAndGet(-seen) != 0) {
            steps();
        }
    }

    /** @return true if the step waits for a reply, and {@link #resume()} is called once it was handled */
    private boolean step() {
        ReleaseWaiter current = waiter;
        if (current != null) {
            if (current.takeGrant()) {
                handedOver(current);
                return false;
            }
            if (!current.stepBegins()) {
                return false; // a local releaser is handing the lock over: its grant or decline kicks a step
            }
        }
        if (result.isDone()) {
            end(false); // its caller completed or cancelled it
            settled.complete(null); // no attempt is under way: what the undoing sends changes no hold of the caller
            return false;
        }
        try {
            openCheck.run();
            JoinWithin join = joining;
            boolean joinFailed = false;
            if (waiter == null && join != null && !join.pending()) {
                joining = null;
                waiter = join.take(); // subscribed (then the attempt below sees any release before), or not answered
                joinFailed = waiter == null;
            }
            if (waiter == null && join == null && willWait) {
                // other local threads wait for this lock: joined before the attempt, no attempt after subscribing
                waiter = subscriptions.joinIfSubscribed(keys.channel(), request.candidate(), request.holder().id(),
                        this::kick);
            }
            Acquisitions.Given given = null;
            if (waiter != null) {
                waiter.arm(); // a release announced from here on kicks another step
                long token = waiter.takeGiven(); // a hold a release gave: taken up with no round trip if it may be
                given = token == 0 ? null : new Acquisitions.Given(token, lastBusyFloor, lastBusySent);
            }
            sent = System.nanoTime();
            CompletableFuture<AcquireReply> reply = acquisitions.attemptAsync(keys, request.holder(),
                    request.leaseMillis(), request.watchdog(), request.maxHoldNanos(), willWait, given, lastBusyFloor);
            if (reply.isDone()) {
                replied(reply, joinFailed);
                return false;
            }
            boolean failedJoin = joinFailed;
            reply.whenComplete((unused, failure) -> {
                replied(reply, failedJoin);
                resume();
            });
            return true;
        }
        catch (Throwable failure) {
            // an Error too: the caller hears of it, and what this wait left is cleaned up
            finish(() -> result.completeExceptionally(failure));
            return false;
        }
    }

    /** Goes on from an attempt's outcome: the lock, the end of the wait, or a timer for the next attempt. */
    private void replied(CompletableFuture<AcquireReply> attempt, boolean joinFailed) {
        try {
            AcquireReply reply = Waits.await(attempt); // done already: this does not wait
            if (reply.acquired()) {
                granted();
                return;
            }
            lastBusyFloor = reply.tokenFloor();
            lastBusySent = sent;
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                finish(() -> result.complete(request.notGranted())); // nothing left behind once the caller hears
                return;
            }
            long sleep = Math.min(left, untilLeaseEnds(reply.value()));
            if (waiter == null) {
                if (joining == null && !joinFailed) {
                    // under way while the wait goes on: Redis may not answer it for the whole command timeout
                    joining = new JoinWithin(keys, subscriptions, request.candidate(), request.holder().id(),
                            this::kick, this::kick);
                }
                // nothing announces the release to this wait yet: look again soon (and subscribe again)
                later(Math.min(sleep, RESUBSCRIBE_NANOS));
                return;
            }
            later(sleep);
            waiter.sleeping(); // a local releaser may hand the lock over from now on
        }
        catch (Throwable failure) {
            finish(() -> result.completeExceptionally(failure));
        }
    }

    /**
     * A local releaser moved the lock to this wait, and registered the hold: it is granted, unless the client
     * closed meanwhile, which gives it back.
     */
    private void handedOver(ReleaseWaiter current) {
        current.arm();
        try {
            openCheck.run();
        }
        catch (IllegalStateException closed) {
            releases.giveBackHandedOver(keys, request.holder())
                    .whenComplete((left, failure) -> finish(() -> result.completeExceptionally(closed)));
            return;
        }
        granted();
    }

    private void later(long nanos) {
        ScheduledFuture<?> before = timer;
        if (before != null) {
            before.cancel(false);
        }
        try {
            timer = scheduler.schedule(this::kick, nanos);
        }
        catch (RejectedExecutionException ex) {
            throw new IllegalStateException("The RedisLockClient was closed while waiting for lock '" + keys.name()
                    + "'", ex);
        }
    }

    private void granted() {
        end(true);
        tell(() -> {
            if (result.complete(request.granted())) {
                settled.complete(null);
                return;
            }
            // cancelled while the lock was being taken: nobody will release it, so give it back now
            // in the owner's turn: its other calls count levels of the same hold
            releases.giveBackUnwanted(keys, request.holder()).whenComplete((left, failure) -> settled.complete(null));
        });
    }

    /** Runs what completes the result on the request's executor: not on the driver's thread, for an async caller. */
    private void tell(Runnable completion) {
        try {
            request.completions().execute(completion);
        }
        catch (RejectedExecutionException ex) {
            completion.run();
        }
    }

    /**
     * Ends a wait given up, then tells the caller, once Redis took in what the wait undoes; at once if the client is
     * closed (close() ends its waits now: a Redis that does not answer must not hold them up).
     */
    private void finish(Runnable completion) {
        Runnable told = () -> tell(() -> {
            try {
                completion.run();
            }
            finally {
                settled.complete(null);
            }
        });
        CompletableFuture<Void> ended;
        try {
            ended = end(false);
        }
        catch (RuntimeException | Error ex) {
            told.run();
            throw ex;
        }
        if (ended.isDone() || acquisitions.clientClosed()) {
            told.run();
        }
        else {
            ended.whenComplete((unused, failure) -> told.run());
        }
    }

    /**
     * Ends the wait: the subscription and timer go, and a wait given up lets the kind undo its queueing. The
     * result completes when Redis took that in.
     */
    private CompletableFuture<Void> end(boolean acquired) {
        if (finished) {
            return CompletableFuture.completedFuture(null); // a release that failed after the grant comes here again
        }
        finished = true;
        subscriptions.unwatchClose(onClose);
        ScheduledFuture<?> pending = timer;
        if (pending != null) {
            pending.cancel(false);
        }
        ReleaseWaiter left = waiter;
        if (left != null) {
            left.close();
        }
        JoinWithin join = joining;
        if (join != null) {
            join.abandon();
        }
        return acquisitions.endedAsync(keys, request.holder(), willWait, acquired);
    }

    /** How long to wait at most after an attempt that found the lock held with {@code pttlMillis} left. */
    static long untilLeaseEnds(long pttlMillis) {
        if (pttlMillis == -1) {
            return NO_LEASE_POLL_NANOS;
        }
        // -2: the key vanished between the two reads; 0: expiring now. Either way, look again at once
        return TimeUnit.MILLISECONDS.toNanos(Math.max(0, pttlMillis));
    }
}
