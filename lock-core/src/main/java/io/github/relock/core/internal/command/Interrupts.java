package io.github.relock.core.internal.command;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Redis calls that an interrupt must not cut short. Lettuce stops waiting for a reply when the calling
 * thread is interrupted, although the command may already have run on the server: an acquisition
 * nobody knows of would block the lock for a whole lease, a release that did happen would be reported
 * as failed, a subscription the client does not know of would never be undone. Every call made
 * through here is safe to send again, so an interrupted one is repeated with the interrupt status
 * cleared, and the status is restored afterwards for the caller to act on.
 */
public final class Interrupts {

    /** Only a pathological interrupt storm needs more than a few; each attempt is a round trip, not a spin. */
    static final int MAX_ATTEMPTS = 100;

    private Interrupts() {
    }

    public static <T> T uninterruptibly(Supplier<T> call) {
        boolean interrupted = Thread.interrupted(); // a pending interrupt would fail the call before it is sent
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return call.get();
                }
                catch (RuntimeException ex) {
                    if (attempt == MAX_ATTEMPTS || !causedByInterrupt(ex)) {
                        throw ex;
                    }
                    interrupted = true;
                    Thread.interrupted(); // the driver set it again
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static void uninterruptibly(Runnable call) {
        uninterruptibly(() -> {
            call.run();
            return null;
        });
    }

    /**
     * Pauses before sending again a call that must not be cut short (a release): an interrupt, also one pending
     * on entry, does not end the pause, and its status is restored afterwards.
     */
    public static void pause(long millis) {
        boolean interrupted = Thread.interrupted(); // a pending interrupt would end every park at once
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps before a retry; false if interrupted, with the status restored: the caller stops retrying. */
    static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static boolean causedByInterrupt(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }
}
