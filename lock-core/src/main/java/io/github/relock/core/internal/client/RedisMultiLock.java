package io.github.relock.core.internal.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.Condition;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.MultiLock;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.lock.Arguments;

/**
 * Several locks as one: all or none, one wait budget. It waits for one lock at a time while holding none of
 * the others, then takes the others at once, one right after the other (in the order given, sorted by the
 * client); one that is busy is the next to wait for, the rest given back first. So no lease runs while another
 * lock is awaited, each runs from about when the last lock was taken, and the call returns held only when
 * every lock is held by its caller.
 */
final class RedisMultiLock implements MultiLock {

    /** The longest pause between two rounds that each took every lock but lost a lease meanwhile. */
    private static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** A lock this call took, with its hold as the client recorded it (a closed client forgets its holds). */
    private record Taken(RedisReentrantLock lock, @Nullable Hold hold) {
    }

    private final List<RedisReentrantLock> locks;

    /** @param locks the locks, already in acquisition order and without duplicates */
    RedisMultiLock(List<RedisReentrantLock> locks) {
        if (locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock name");
        }
        this.locks = List.copyOf(locks);
    }

    @Override
    public List<ReentrantDistributedLock> locks() {
        return List.copyOf(locks);
    }

    @Override
    public MultiLock withMaxHold(Duration maxHold) {
        return new RedisMultiLock(locks.stream().map(lock -> lock.withMaxHold(maxHold)).toList());
    }

    @Override
    public void lock() {
        takeUninterruptibly(Long.MAX_VALUE, 0);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        takeUninterruptibly(Long.MAX_VALUE, Arguments.leaseMillis(leaseTime, unit));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        takeAll(Long.MAX_VALUE, 0, true);
    }

    @Override
    public boolean tryLock() {
        return takeUninterruptibly(0, 0);
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return takeAll(Arguments.waitNanos(waitTime, unit), 0, true);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long leaseMillis = Arguments.leaseMillis(leaseTime, unit);
        return takeAll(Arguments.waitNanos(waitTime, unit), leaseMillis, true);
    }

    private boolean takeUninterruptibly(long budgetNanos, long leaseMillis) {
        try {
            return takeAll(budgetNanos, leaseMillis, false);
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException("An uninterruptible acquisition cannot be interrupted", ex);
        }
    }

    /**
     * Takes every lock within one budget: waits for one, takes the others at once; if one of them is busy, gives
     * back what it took and waits for that one; a lease that ran out while the others were taken has them all taken
     * again, within the budget, after a pause that grows each time (a lease shorter than taking them all takes would
     * otherwise be retried at full speed). A failure, an interrupt or a closed client gives back what it took.
     *
     * @param leaseMillis each lock's lease; 0: the watchdog's
     */
    private boolean takeAll(long budgetNanos, long leaseMillis, boolean interruptible) throws InterruptedException {
        long started = System.nanoTime();
        List<Taken> taken = new ArrayList<>(locks.size());
        int waitFor = 0;
        long pause = 0;
        try {
            while (true) {
                long round = System.nanoTime();
                RedisReentrantLock awaited = locks.get(waitFor);
                if (!awaited.take(Math.max(0, budgetNanos - (System.nanoTime() - started)), leaseMillis,
                        interruptible)) {
                    return false;
                }
                taken.add(new Taken(awaited, awaited.hold()));
                int busy = -1;
                for (int i = 0; i < locks.size() && busy < 0; i++) {
                    RedisReentrantLock lock = locks.get(i);
                    if (i == waitFor) {
                        continue;
                    }
                    if (lock.take(0, leaseMillis, interruptible)) {
                        taken.add(new Taken(lock, lock.hold()));
                    }
                    else {
                        busy = i;
                    }
                }
                // a lease the local clock saw end while the others were taken (Redis stalled): take them all again
                if (busy < 0 && locks.stream().noneMatch(RedisReentrantLock::isLost)) {
                    return true;
                }
                giveBack(taken, null);
                if (busy < 0) {
                    // every lock was free and still a lease ran out: one shorter than taking them all takes, or
                    // a stalled Redis. Taking them again at once would do the same; the pause grows each time
                    pause = Math.min(MAX_PAUSE_NANOS, Math.max(2 * pause, System.nanoTime() - round));
                    if (!pause(Math.min(pause, budgetNanos - (System.nanoTime() - started)), interruptible)) {
                        return false;
                    }
                }
                if (budgetNanos - (System.nanoTime() - started) <= 0) {
                    return false;
                }
                waitFor = busy < 0 ? waitFor : busy;
            }
        }
        catch (InterruptedException | RuntimeException | Error ex) {
            giveBack(taken, ex);
            throw ex;
        }
    }

    /**
     * Waits {@code nanos} on the caller's thread, which holds none of the locks now; an uninterruptible call keeps
     * the interrupt flag for its caller.
     *
     * @return false if the wait budget is used up
     */
    private static boolean pause(long nanos, boolean interruptible) throws InterruptedException {
        if (nanos <= 0) {
            return false;
        }
        if (interruptible) {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return true;
        }
        long end = System.nanoTime() + nanos;
        boolean interrupted = false;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
            interrupted |= Thread.interrupted(); // a set flag would end every park at once
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    /** Gives back what this call took, last first, and forgets it. */
    private static void giveBack(List<Taken> taken, @Nullable Throwable cause) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).lock().giveBack(taken.get(i).hold());
            }
            catch (RuntimeException ex) {
                if (cause != null) {
                    cause.addSuppressed(ex);
                }
            }
        }
        taken.clear();
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, @Nullable Duration leaseTime, LockOwner owner) {
        throw noAsync();
    }

    @Override
    public CompletableFuture<Void> lockAsync(LockOwner owner) {
        throw noAsync();
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime, LockOwner owner) {
        throw noAsync();
    }

    @Override
    public CompletableFuture<Void> unlockAsync(LockOwner owner) {
        throw noAsync();
    }

    private static UnsupportedOperationException noAsync() {
        return new UnsupportedOperationException("A multi-lock has no asynchronous calls yet: take its locks one "
                + "by one with tryLockAsync, in the order of locks()");
    }

    /** Releases every lock, last first, then throws the first failure, a lost lock before anything else. */
    @Override
    public void unlock() {
        List<RuntimeException> failures = new ArrayList<>();
        for (int i = locks.size() - 1; i >= 0; i--) {
            try {
                locks.get(i).unlock();
            }
            catch (RuntimeException ex) {
                failures.add(ex);
            }
        }
        if (failures.isEmpty()) {
            return;
        }
        RuntimeException first = failures.stream().filter(LockLostException.class::isInstance).findFirst()
                .orElse(failures.get(0));
        failures.stream().filter(failure -> failure != first).forEach(first::addSuppressed);
        throw first;
    }

    @Override
    public boolean forceUnlock() {
        boolean any = false;
        for (RedisReentrantLock lock : locks) {
            any |= lock.forceUnlock();
        }
        return any;
    }

    @Override
    public boolean isLocked() {
        return locks.stream().anyMatch(ReentrantDistributedLock::isLocked);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return heldAsAWhole();
    }

    @Override
    public boolean isLost() {
        boolean lost = locks.stream().anyMatch(ReentrantDistributedLock::isLost);
        if (lost) {
            heldAsAWhole(); // gives back the others
        }
        return lost;
    }

    @Override
    public int getHoldCount() {
        return heldAsAWhole() ? locks.get(0).getHoldCount() : 0;
    }

    /**
     * Whether the owner holds every lock. Once one is known lost the all-or-none hold is over, so the others are
     * given back here, every level of them: otherwise the JDK idiom {@code if (isHeldByCurrentThread()) unlock()}
     * would skip them and the watchdog would renew them until the client closes.
     */
    private boolean heldAsAWhole() {
        boolean all = true;
        for (RedisReentrantLock lock : locks) {
            all &= lock.isHeldByCurrentThread();
        }
        if (!all) {
            for (int i = locks.size() - 1; i >= 0; i--) {
                RedisReentrantLock lock = locks.get(i);
                try {
                    while (lock.getHoldCount() > 0) {
                        lock.unlock(); // owner-checked: a nested level is counted here, the last one released in Redis
                    }
                }
                catch (RuntimeException ex) {
                    // lost meanwhile, or Redis did not answer: its lease ends it; nothing more to give back here
                }
            }
        }
        return all;
    }

    @Override
    public Duration remainingLease() {
        return locks.stream().map(ReentrantDistributedLock::remainingLease).min(Duration::compareTo).orElseThrow();
    }

    @Override
    public long fencingToken() {
        return locks.get(0).fencingToken();
    }

    /** The first lock's hold, as {@link #fencingToken()} is the first lock's token; {@link #locks()} has the others. */
    @Override
    public Optional<HeldLock> currentHold() {
        return locks.get(0).currentHold();
    }

    @Override
    public String getName() {
        return locks.stream().map(ReentrantDistributedLock::getName).collect(Collectors.joining(", "));
    }

    @Override
    public String getKey() {
        return locks.stream().map(ReentrantDistributedLock::getKey).collect(Collectors.joining(", "));
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed locks have no conditions");
    }

    @Override
    public String toString() {
        return "RedisMultiLock" + locks;
    }
}
