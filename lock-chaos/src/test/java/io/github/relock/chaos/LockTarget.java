package io.github.relock.chaos;

import java.util.Random;

import io.github.relock.core.LockOwner;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * The lock a programmatic hold takes: half the time the exclusive lock {@code L:k<n>}, else the fair lock
 * {@code F:k<n>} or one side of the read-write lock {@code RW:k<n>} (exclusive only in the Sentinel phases, whose
 * client waits for replicas, which those two kinds do not support yet). A read hold is shared: it may overlap
 * other read holds of its lock, never a write hold.
 */
record LockTarget(ReentrantDistributedLock lock, boolean shared) {

    /** The section kind a shared hold reports, so that the exclusion check lets readers overlap. */
    static final String SHARED_KIND = "prog-read";

    static LockTarget pick(Random random, RedisLockClient client, int locks, LockOwner owner) {
        int n = random.nextInt(locks);
        int roll = random.nextInt(100);
        try {
            return roll < 50 ? exclusive(client, n, owner) : other(client, n, owner, roll);
        }
        catch (UnsupportedOperationException ex) {
            return exclusive(client, n, owner); // a client that waits for replicas has only the exclusive lock
        }
    }

    private static LockTarget exclusive(RedisLockClient client, int n, LockOwner owner) {
        return new LockTarget(owner == null ? client.getLock("L:k" + n) : client.getLock("L:k" + n, owner), false);
    }

    private static LockTarget other(RedisLockClient client, int n, LockOwner owner, int roll) {
        if (roll < 70) {
            String name = "F:k" + n;
            return new LockTarget(owner == null ? client.getFairLock(name) : client.getFairLock(name, owner), false);
        }
        String name = "RW:k" + n;
        ReadWriteDistributedLock lock = owner == null ? client.getReadWriteLock(name)
                : client.getReadWriteLock(name, owner);
        boolean read = roll < 85;
        return new LockTarget(read ? lock.readLock() : lock.writeLock(), read);
    }

    String sectionKind() {
        return shared ? SHARED_KIND : "prog";
    }
}
