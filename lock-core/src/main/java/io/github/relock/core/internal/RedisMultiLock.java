package io.github.relock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.MultiLock;
import io.github.relock.core.ReentrantDistributedLock;

/** Several locks as one: all or none, in the order given (sorted by the client), one wait budget. */
final class RedisMultiLock implements MultiLock {

    /** One way of taking a single lock within what is left of the budget. */
    @FunctionalInterface
    private interface Take {
        boolean take(ReentrantDistributedLock lock, long leftNanos) throws InterruptedException;
    }

    private final List<ReentrantDistributedLock> locks;

    /** @param locks the locks, already in acquisition order and without duplicates */
    RedisMultiLock(List<ReentrantDistributedLock> locks) {
        if (locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock name");
        }
        this.locks = List.copyOf(locks);
    }

    @Override
    public List<ReentrantDistributedLock> locks() {
        return locks;
    }

    @Override
    public MultiLock withMaxHold(Duration maxHold) {
        return new RedisMultiLock(locks.stream().map(lock -> lock.withMaxHold(maxHold)).toList());
    }

    @Override
    public void lock() {
        takeUninterruptibly((lock, left) -> {
            lock.lock();
            return true;
        });
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        takeUninterruptibly((lock, left) -> {
            lock.lock(leaseTime, unit);
            return true;
        });
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        takeAll(Long.MAX_VALUE, (lock, left) -> {
            lock.lockInterruptibly();
            return true;
        });
    }

    @Override
    public boolean tryLock() {
        return takeUninterruptibly((lock, left) -> lock.tryLock());
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return takeAll(Arguments.waitNanos(waitTime, unit), (lock, left) -> lock.tryLock(left, TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long leaseMillis = Arguments.leaseMillis(leaseTime, unit);
        return takeAll(Arguments.waitNanos(waitTime, unit),
                (lock, left) -> lock.tryLock(TimeUnit.NANOSECONDS.toMillis(left), leaseMillis, TimeUnit.MILLISECONDS));
    }

    private boolean takeUninterruptibly(Take take) {
        try {
            return takeAll(Long.MAX_VALUE, take);
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException("An uninterruptible acquisition cannot be interrupted", ex);
        }
    }

    /** Takes the locks in order within one budget; if one fails, gives back the ones taken, last first. */
    private boolean takeAll(long budgetNanos, Take take) throws InterruptedException {
        long started = System.nanoTime();
        int taken = 0;
        try {
            for (ReentrantDistributedLock lock : locks) {
                long left = Math.max(0, budgetNanos - (System.nanoTime() - started));
                if (!take.take(lock, left)) {
                    giveBack(taken, null);
                    return false;
                }
                taken++;
            }
            return true;
        }
        catch (InterruptedException | RuntimeException | Error ex) {
            giveBack(taken, ex);
            throw ex;
        }
    }

    private void giveBack(int taken, @Nullable Throwable cause) {
        for (int i = taken - 1; i >= 0; i--) {
            try {
                locks.get(i).unlock();
            }
            catch (RuntimeException ex) {
                if (cause != null) {
                    cause.addSuppressed(ex);
                }
            }
        }
    }

    /** Releases every lock, last first, then throws the first failure, a lost lock before anything else. */
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
        for (ReentrantDistributedLock lock : locks) {
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
        return locks.stream().allMatch(ReentrantDistributedLock::isHeldByCurrentThread);
    }

    @Override
    public boolean isLost() {
        return locks.stream().anyMatch(ReentrantDistributedLock::isLost);
    }

    @Override
    public int getHoldCount() {
        return locks.get(0).getHoldCount();
    }

    @Override
    public Duration remainingLease() {
        return locks.stream().map(ReentrantDistributedLock::remainingLease).min(Duration::compareTo).orElseThrow();
    }

    @Override
    public long fencingToken() {
        return locks.get(0).fencingToken();
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
