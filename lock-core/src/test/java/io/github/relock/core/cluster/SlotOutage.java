package io.github.relock.core.cluster;

import java.util.ArrayList;
import java.util.List;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;
import io.lettuce.core.cluster.SlotHash;

/**
 * The primary of a lock's slot serving no slot for the lock's key (CLUSTER DELSLOTS) until {@link #end()}: every
 * command on the lock's keys is answered {@code CLUSTERDOWN} meanwhile. {@link #endAfter} ends it from a thread of its own.
 */
final class SlotOutage implements AutoCloseable {

    private final RedisServer owner;
    private final String slot;
    private final String key;
    private final List<Thread> enders = new ArrayList<>();
    private boolean ended;

    private SlotOutage(RedisServer owner, String slot, String key) {
        this.owner = owner;
        this.slot = slot;
        this.key = key;
    }

    /** Starts an outage of the slot of lock {@code name}'s key. */
    static SlotOutage of(RedisClusterSetup cluster, RedisLockClient client, String name) {
        String key = client.redisKeys(name).lock();
        int slot = SlotHash.getSlot(key);
        RedisServer owner = cluster.nodeForSlot(slot);
        owner.command("CLUSTER", "DELSLOTS", Integer.toString(slot));
        return new SlotOutage(owner, Integer.toString(slot), key);
    }

    /** Ends the outage {@code millis} from now, on a thread of its own. */
    SlotOutage endAfter(long millis) {
        Thread ender = new Thread(() -> {
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                return; // close() ends it
            }
            end();
        }, "outage-end-" + slot);
        ender.setDaemon(true);
        ender.start();
        enders.add(ender);
        return this;
    }

    synchronized void end() {
        if (!ended) {
            ended = true;
            owner.command("CLUSTER", "ADDSLOTS", slot);
        }
    }

    /** The lock's hash on the node that owns it, as {@code field\nvalue\n...} (empty: no such key); after the outage. */
    String hash() {
        String all = owner.command("HGETALL", key);
        return all == null ? "" : all;
    }

    /** The lock's remaining lease in Redis (PTTL; -2: no key); after the outage. */
    long pttl() {
        return Long.parseLong(owner.command("PTTL", key));
    }

    @Override
    public void close() {
        enders.forEach(Thread::interrupt);
        end();
    }
}
