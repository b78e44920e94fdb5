package io.github.relock.chaos;

import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * One driver thread on the programmatic API: holds a random lock (see {@link LockTarget}) with a random
 * acquisition, re-enters it
 * to a random depth with other acquisition kinds (lease kinds mixed), works, and releases; sometimes as an
 * explicit {@link LockOwner} released from another thread, rarely a {@code forceUnlock()} or a
 * {@code close()} of the client followed by a new one.
 */
final class ProgrammaticDriver implements Runnable {

    /** Per iteration: about one close per half minute and one forceUnlock per 10 s per JVM. */
    private static final double CLOSE = 0.0012;
    private static final double FORCE = 0.003;

    private final int jvm;
    private final Random random;
    private final ClientSlot slot;
    private final int locks;
    private final ExecutorService hopper;
    private RedisLockClient ownersClient;
    private LockOwner owner;

    ProgrammaticDriver(int jvm, Random random, ClientSlot slot, int locks, ExecutorService hopper) {
        this.jvm = jvm;
        this.random = random;
        this.slot = slot;
        this.locks = locks;
        this.hopper = hopper;
    }

    @Override
    public void run() {
        while (!slot.stopping()) {
            double roll = random.nextDouble();
            if (roll < CLOSE) {
                slot.closeAndReplace(random);
            }
            else if (roll < CLOSE + FORCE) {
                slot.op("forceUnlock", this::forceUnlock);
            }
            else {
                slot.op("hold", this::hold);
            }
            Work.think(random);
        }
    }

    private void hold() {
        RedisLockClient client = slot.client();
        LockOwner explicit = random.nextInt(4) == 0 ? explicitOwner(client) : null;
        LockTarget target = LockTarget.pick(random, client, locks, explicit);
        boolean hop = explicit != null && random.nextBoolean();
        level(client, target, explicit, 0, 1 + random.nextInt(3), null, hop);
    }

    /** One level of a hold; returns true once the holder was told it lost the lock. */
    private boolean level(RedisLockClient client, LockTarget target, LockOwner explicit, int level,
            int depth, Holder outer, boolean hop) {
        ReentrantDistributedLock lock = target.lock();
        Acquire how = Acquire.pick(random);
        long wait = how.waitMillis(random);
        long lease = how.leaseMillis(random);
        String opId = Ids.op(jvm);
        long invoke = System.nanoTime();
        boolean acquired;
        try {
            acquired = how.call(lock, wait, lease);
        }
        catch (LockLostException ex) {
            op(opId, how.name(), lock, invoke, how.waitBound(wait), "lost");
            if (outer != null) {
                outer.tell("exception"); // re-entry refused: the hold was lost
            }
            return true;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return true;
        }
        catch (RuntimeException ex) {
            op(opId, how.name(), lock, invoke, how.waitBound(wait), "error:" + ex.getClass().getSimpleName());
            return false;
        }
        long enter = op(opId, how.name(), lock, invoke, how.waitBound(wait), acquired ? "acquired" : "not-acquired");
        if (!acquired) {
            return false;
        }
        Holder holder = outer != null ? outer : Holder.programmatic(jvm, client, lock, explicit);
        long work = Work.millis(random);
        try {
            boolean told = Work.run(work / 2, lock::isLost, holder);
            if (!told && level + 1 < depth) {
                told = level(client, target, explicit, level + 1, depth, holder, hop);
            }
            if (!told) {
                told = Work.run(work - work / 2, lock::isLost, holder);
            }
            if (!told && !target.shared()) {
                holder.write(); // readers share the lock: a fenced write is a writer's
            }
            return told;
        }
        finally {
            long exit = System.nanoTime();
            String end = release(lock, hop && level == 0, holder);
            holder.section(lease, invoke, enter, exit, level + 1, target.sectionKind(), end, opId);
        }
    }

    private String release(ReentrantDistributedLock lock, boolean onAnotherThread, Holder holder) {
        String opId = Ids.op(jvm);
        long invoke = System.nanoTime();
        String result;
        try {
            if (onAnotherThread) {
                hopper.submit(lock::unlock).get();
            }
            else {
                lock.unlock();
            }
            result = "ok";
        }
        catch (ExecutionException ex) {
            result = outcome(ex.getCause(), holder);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            result = "interrupted";
        }
        catch (RuntimeException ex) {
            result = outcome(ex, holder);
        }
        op(opId, "UNLOCK", lock, invoke, -1, result);
        return result;
    }

    private static String outcome(Throwable failure, Holder holder) {
        if (failure instanceof LockLostException) {
            holder.tell("exception");
            return "lost";
        }
        return "error:" + failure.getClass().getSimpleName();
    }

    private void forceUnlock() {
        ReentrantDistributedLock lock = forceTarget(slot.client(), random.nextInt(locks), random.nextBoolean());
        long invoke = System.nanoTime();
        String result;
        try {
            result = lock.forceUnlock() ? "deleted" : "free";
        }
        catch (RuntimeException ex) {
            result = "error:" + ex.getClass().getSimpleName();
        }
        Out.emit(new Ev.Force(jvm, lock.getKey(), invoke, System.nanoTime(), result));
    }

    /** The exclusive or the fair lock of number {@code n}; the exclusive one where the client has no fair lock. */
    private static ReentrantDistributedLock forceTarget(RedisLockClient client, int n, boolean fair) {
        try {
            return fair ? client.getFairLock("F:k" + n) : client.getLock("L:k" + n);
        }
        catch (UnsupportedOperationException ex) {
            return client.getLock("L:k" + n); // a client that waits for replicas has no fair lock yet
        }
    }

    /** An explicit owner of the current client: reused for a while, as work that hops threads would. */
    private LockOwner explicitOwner(RedisLockClient client) {
        if (owner == null || ownersClient != client || random.nextInt(3) == 0) {
            owner = client.newOwner();
            ownersClient = client;
        }
        return owner;
    }

    /** Records one call; returns when it returned. */
    private long op(String opId, String kind, ReentrantDistributedLock lock, long invoke, long wait, String result) {
        long ret = System.nanoTime();
        Out.emit(new Ev.Op(jvm, opId, kind, lock.getKey(), invoke, ret, wait, result, "-"));
        return ret;
    }
}
