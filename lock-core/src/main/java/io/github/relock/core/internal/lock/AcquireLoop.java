package io.github.relock.core.internal.lock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.WakeUp;
import io.github.relock.core.internal.wait.ReleaseWaiter;
import io.github.relock.core.internal.wait.UnansweredLately;

/**
 * The wait for a lock, whatever its kind: try once; if it is busy, join the lock's local waiters and sleep
 * until a release is announced, a local releaser hands the lock over, or the holder's lease would end,
 * whichever comes first; try again. No spinning, and a lost announcement costs at most one lease. A
 * subscription Redis did not confirm (a connection cut or timed out) is a wake-up that will not come: the
 * waiter looks again after {@link #RESUBSCRIBE_NANOS} and subscribes again, rather than give up the wait.
 */
public final class AcquireLoop {

    /** One acquisition round trip of the lock kind at hand. */
    @FunctionalInterface
    public interface Attempt {
        AcquireReply run();
    }

    /** What to do with a lock a local releaser handed over when the waiter no longer wants it. */
    interface Unwanted {

        /** An interruptible wait was interrupted as the lock arrived: pass it on. */
        void interrupted(InterruptedException reported);

        /** The client closed as the lock arrived: give it back. */
        void closing(RuntimeException reported);
    }

    /** How soon a waiter whose subscription failed looks again, and subscribes again. */
    static final long RESUBSCRIBE_NANOS = UnansweredLately.RESUBSCRIBE_NANOS;

    /** How often to look again when the holder set no lease (a key written by something else). */
    private static final long NO_LEASE_POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Logger log = LoggerFactory.getLogger(AcquireLoop.class);

    private final LockKeys keys;
    private final ClientContext context;

    public AcquireLoop(LockKeys keys, ClientContext context) {
        this.keys = keys;
        this.context = context;
    }

    /**
     * @param waitNanos  how long to wait; 0: one attempt
     * @param name       the waiter's hold field, which a fair lock's release names when it is next
     * @param candidate  who a local releaser may hand the lock to while this thread sleeps; null: nobody
     * @return whether the lock is now held
     */
    public boolean acquire(long waitNanos, boolean interruptible, String name, ReleaseWaiter.@Nullable Candidate candidate,
            Attempt attempt, Unwanted unwanted) throws InterruptedException {
        context.openCheck().run();
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("Interrupted before waiting for lock '" + keys.name() + "'");
        }
        long deadline = System.nanoTime() + waitNanos;
        boolean interrupted = false;
        try {
            if (waitNanos > 0 && stepBack(deadline)) {
                interrupted = interruptedWhileWaiting(interruptible);
            }
            AcquireReply reply = attempt.run();
            if (reply.acquired() || waitNanos == 0) {
                return reply.acquired();
            }
            // subscribing runs off this thread: Redis may not answer it for the whole command timeout
            JoinWithin joining = joinWithin(candidate, name);
            ReleaseWaiter waiter = null;
            try {
                if (joining.await(Math.min(deadline - System.nanoTime(), RESUBSCRIBE_NANOS))) {
                    interrupted = interruptedWhileWaiting(interruptible);
                }
                waiter = joining.take();
                joining = joining.pending() ? joining : null;
                // behind other local waiters, a release since the attempt above woke one of them or went to one;
                // a release that wakes all, or names its next owner, may have been meant for this one
                boolean attemptNow = waiter == null || !waiter.behindOthers() || keys.kind().wakeUp() != WakeUp.ONE;
                while (true) {
                    if (attemptNow) {
                        context.openCheck().run(); // a closed client takes no lock, even after a late subscribe
                        if (waiter != null) {
                            // armed before the attempt: a release announced from here on wakes the sleep below
                            waiter.arm();
                        }
                        reply = attempt.run();
                        if (reply.acquired()) {
                            if (waiter != null) {
                                waiter.arm(); // the wake-up, if any, was used
                            }
                            return true;
                        }
                    }
                    attemptNow = true;
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    long sleep = Math.min(left, untilLeaseEnds(reply.value()));
                    if (waiter == null) {
                        // nothing announces the release to this waiter yet: look again soon, and subscribe again
                        long sliceEnd = System.nanoTime() + Math.min(sleep, RESUBSCRIBE_NANOS);
                        joining = joining != null ? joining : joinWithin(candidate, name);
                        boolean interruptedNow = joining.await(sliceEnd - System.nanoTime());
                        waiter = joining.take();
                        joining = joining.pending() ? joining : null;
                        if (waiter == null && !interruptedNow) {
                            LockSupport.parkNanos(this, sliceEnd - System.nanoTime()); // Redis did not answer it
                            interruptedNow = Thread.interrupted();
                        }
                        if (interruptedNow || stepBack(deadline)) {
                            interrupted = interruptedWhileWaiting(interruptible);
                        }
                        continue;
                    }
                    boolean interruptedNow = sleep(waiter, sleep, unwanted);
                    if (waiter.takeGrant()) {
                        waiter.arm();
                        if (interruptedNow && interruptible) {
                            InterruptedException reported = new InterruptedException("Interrupted while waiting for "
                                    + "lock '" + keys.name() + "'; the lock handed over at that moment was passed on");
                            unwanted.interrupted(reported);
                            throw reported;
                        }
                        interrupted |= interruptedNow;
                        return true;
                    }
                    if (interruptedNow || stepBack(deadline)) {
                        interrupted = interruptedWhileWaiting(interruptible);
                    }
                }
            }
            finally {
                if (waiter != null) {
                    waiter.close();
                }
                if (joining != null) {
                    joining.abandon();
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Starts joining the lock's local waiters; an error reply to the subscribe ends the wait when it is taken. */
    private JoinWithin joinWithin(ReleaseWaiter.@Nullable Candidate candidate, String name) {
        // with minReplicas a moved hold would skip its WAIT: such waiters only ever take the lock themselves
        return JoinWithin.forThisThread(keys, context, context.commands().awaitsReplicas() ? null : candidate, name);
    }

    private boolean interruptedWhileWaiting(boolean interruptible) throws InterruptedException {
        if (interruptible) {
            throw new InterruptedException("Interrupted while waiting for lock '" + keys.name() + "'");
        }
        return true;
    }

    /** Sleeps in the waiter; a hand-off granted just as the client closed is given back, not left to its lease. */
    private static boolean sleep(ReleaseWaiter waiter, long nanos, Unwanted unwanted) {
        try {
            return waiter.await(nanos);
        }
        catch (RuntimeException ex) {
            if (waiter.takeGrant()) {
                unwanted.closing(ex);
            }
            throw ex;
        }
    }

    /**
     * While this client steps back after freeing the lock for another client, leaves it alone until the
     * step-back ends (or the deadline). True if an interrupt cut the pause short (status cleared).
     */
    private boolean stepBack(long deadline) {
        while (true) {
            long pause = Math.min(context.subscriptions().stepBackNanos(keys.channel()), deadline - System.nanoTime());
            if (pause <= 0) {
                return false;
            }
            LockSupport.parkNanos(this, pause);
            if (Thread.interrupted()) {
                return true;
            }
        }
    }

    /** How long to sleep at most after an attempt that found the lock held with {@code pttlMillis} left. */
    static long untilLeaseEnds(long pttlMillis) {
        if (pttlMillis == -1) {
            return NO_LEASE_POLL_NANOS;
        }
        // -2: the key vanished between the two reads; 0: expiring now. Either way, look again at once
        return TimeUnit.MILLISECONDS.toNanos(Math.max(0, pttlMillis));
    }
}
