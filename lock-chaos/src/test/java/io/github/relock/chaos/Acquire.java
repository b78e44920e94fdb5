package io.github.relock.chaos;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.relock.core.ReentrantDistributedLock;

/** The five ways to acquire through the public API, each with its wait and lease kind. */
enum Acquire {

    LOCK(false, false, 15),
    LOCK_LEASE(false, true, 15),
    TRY_LOCK(false, false, 15),
    TRY_LOCK_WAIT(true, false, 30),
    TRY_LOCK_WAIT_LEASE(true, true, 25);

    private final boolean waits;
    private final boolean leased;
    private final int weight;

    Acquire(boolean waits, boolean leased, int weight) {
        this.waits = waits;
        this.leased = leased;
        this.weight = weight;
    }

    static Acquire pick(Random random) {
        int roll = random.nextInt(100);
        for (Acquire acquire : values()) {
            roll -= acquire.weight;
            if (roll < 0) {
                return acquire;
            }
        }
        return TRY_LOCK_WAIT;
    }

    /** A wait for this kind: 0-1.5 s where it takes one, else 0. */
    long waitMillis(Random random) {
        return waits ? random.nextInt(1_500) : 0;
    }

    /** A fixed lease for this kind, 0.2-3 s (some longer than the watchdog lease), or 0 for the watchdog. */
    long leaseMillis(Random random) {
        return leased ? 200 + random.nextInt(2_800) : 0;
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
