package io.github.relock.chaos;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.relock.core.ReentrantDistributedLock;

/** The five ways to acquire through the public API, each with its wait and lease kind. */
enum Acquire {

    LOCK, LOCK_LEASE, TRY_LOCK, TRY_LOCK_WAIT, TRY_LOCK_WAIT_LEASE;

    /** How often each is picked, in percent. */
    private int weight() {
        return switch (this) {
            case TRY_LOCK_WAIT -> 30;
            case TRY_LOCK_WAIT_LEASE -> 25;
            default -> 15;
        };
    }

    private boolean waits() {
        return this == TRY_LOCK_WAIT || this == TRY_LOCK_WAIT_LEASE;
    }

    private boolean leased() {
        return this == LOCK_LEASE || this == TRY_LOCK_WAIT_LEASE;
    }

    static Acquire pick(Random random) {
        int roll = random.nextInt(100);
        for (Acquire acquire : values()) {
            roll -= acquire.weight();
            if (roll < 0) {
                return acquire;
            }
        }
        return TRY_LOCK_WAIT;
    }

    /** A wait for this kind: 0-1.5 s where it takes one, else 0. */
    long waitMillis(Random random) {
        return waits() ? random.nextInt(1_500) : 0;
    }

    /** A fixed lease for this kind, 0.2-3 s (some longer than the watchdog lease), or 0 for the watchdog. */
    long leaseMillis(Random random) {
        return leased() ? 200 + random.nextInt(2_800) : 0;
    }

    /** The wait as the stall check sees it: -1 for a call that waits as long as it takes. */
    long waitBound(long waitMillis) {
        return this == LOCK || this == LOCK_LEASE ? -1 : waitMillis;
    }

    boolean call(ReentrantDistributedLock lock, long waitMillis, long leaseMillis) throws InterruptedException {
        return switch (this) {
            case LOCK -> {
                lock.lock();
                yield true;
            }
            case LOCK_LEASE -> {
                lock.lock(leaseMillis, TimeUnit.MILLISECONDS);
                yield true;
            }
            case TRY_LOCK -> lock.tryLock();
            case TRY_LOCK_WAIT -> lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
            case TRY_LOCK_WAIT_LEASE -> lock.tryLock(waitMillis, leaseMillis, TimeUnit.MILLISECONDS);
        };
    }
}
