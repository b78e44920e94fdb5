package io.github.relock.spring.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockLostException;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * The locks of one call, taken all or none, in the order given (callers sort them by name so that two
 * calls can never take the same two locks in opposite orders), and released in reverse.
 */
final class LockGroup {

    private final List<ReentrantDistributedLock> locks;
    private int taken;

    /** @param locks the locks, already in acquisition order */
    LockGroup(List<ReentrantDistributedLock> locks) {
        this.locks = List.copyOf(locks);
    }

    /**
     * Takes every lock within one overall wait budget.
     *
     * @return {@code null} if all were taken, else the lock that was not (the ones taken before it are released)
     */
    @Nullable ReentrantDistributedLock acquire(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
        long started = System.nanoTime();
        long budget = saturatedNanos(waitTime);
        try {
            for (ReentrantDistributedLock lock : locks) {
                long left = Math.max(0, budget - (System.nanoTime() - started));
                boolean acquired = leaseTime == null ? lock.tryLock(left, TimeUnit.NANOSECONDS)
                        : lock.tryLock(left, leaseTime.toNanos(), TimeUnit.NANOSECONDS);
                if (!acquired) {
                    releaseQuietly();
                    return lock;
                }
                taken++;
            }
            return null;
        }
        catch (InterruptedException | RuntimeException | Error ex) {
            releaseQuietly();
            throw ex;
        }
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE; // centuries: as long as it takes
        }
    }

    /** The first lock this client knows to be lost (no Redis round trip), or {@code null}. */
    @Nullable ReentrantDistributedLock firstLost() {
        for (int i = 0; i < taken; i++) {
            if (locks.get(i).isLost()) {
                return locks.get(i);
            }
        }
        return null;
    }

    /**
     * Releases what was taken, last first, carrying on past failures.
     *
     * @return the failures: a {@link LockLostException} per lock that was lost while held, and whatever
     *         else a release threw (Redis unreachable)
     */
    List<RuntimeException> release() {
        List<RuntimeException> failures = new ArrayList<>();
        while (taken > 0) {
            ReentrantDistributedLock lock = locks.get(--taken);
            boolean lost = lock.isLost();
            try {
                lock.unlock();
                if (lost) {
                    // the local clock said the fixed lease ran out even though Redis still had the key
                    failures.add(new LockLostException(lock.getName(), "Lock '" + lock.getName()
                            + "' outlived its lease while the method ran; another holder may have run meanwhile"));
                }
            }
            catch (RuntimeException ex) {
                failures.add(ex);
            }
        }
        return failures;
    }

    /** The Redis keys of the group, comma separated, for messages. */
    String keys() {
        StringBuilder keys = new StringBuilder();
        for (ReentrantDistributedLock lock : locks) {
            keys.append(keys.length() == 0 ? "" : ", ").append(lock.getKey());
        }
        return keys.toString();
    }

    private void releaseQuietly() {
        release();
    }

    @Override
    public String toString() {
        return "LockGroup" + locks;
    }
}
