package io.github.relock.spring.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import io.github.relock.core.HeldLock;
import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.RedisLockClient;

/**
 * {@code /actuator/relock}: the locks this instance holds right now, as its client last saw them (no
 * Redis round trip, so it answers even when Redis does not).
 */
@Endpoint(id = "relock")
public class RelockEndpoint {

    private final DistributedLockClient client;

    public RelockEndpoint(DistributedLockClient client) {
        this.client = client;
    }

    @ReadOperation
    public HeldLocksDescriptor heldLocks() {
        Instant now = Instant.now();
        List<HeldLockDescriptor> locks = client.heldLocks().stream().map(lock -> HeldLockDescriptor.of(lock, now)).toList();
        String keyPrefix = client instanceof RedisLockClient redis ? redis.getKeyPrefix() : null;
        return new HeldLocksDescriptor(client.getClientId(), keyPrefix, locks);
    }

    /**
     * The locks one instance holds.
     *
     * @param clientId  the instance's client id, the first part of every owner id
     * @param keyPrefix the prefix of every lock key (null for a client that is not a {@code RedisLockClient})
     * @param locks     the locks held
     */
    public record HeldLocksDescriptor(String clientId, @Nullable String keyPrefix, List<HeldLockDescriptor> locks) {
    }

    /**
     * One held lock.
     *
     * @param name                 the lock name, {@code name:key} for {@code @DistributedLock} methods
     * @param key                  the Redis key
     * @param holdCount            how many times its owner holds it
     * @param remainingLeaseMillis time left on the lease by the local clock; the watchdog extends it while held
     * @param fencingToken         the token of the current hold
     * @param ownerId              the owner id in the lock hash
     * @param ownerThread          the owning thread, or {@code null} for an explicit owner (async methods)
     * @param watchdog             whether the watchdog renews it (no fixed lease)
     * @param acquiredAt           when the first hold was taken (ISO-8601)
     */
    public record HeldLockDescriptor(String name, String key, int holdCount, long remainingLeaseMillis,
            long fencingToken, String ownerId, @Nullable String ownerThread, boolean watchdog, String acquiredAt) {

        static HeldLockDescriptor of(HeldLock lock, Instant now) {
            long remaining = Math.max(0, Duration.between(now, lock.leaseExpiresAt()).toMillis());
            return new HeldLockDescriptor(lock.name(), lock.key(), lock.holdCount(), remaining, lock.fencingToken(),
                    lock.ownerId(), lock.ownerThread(), lock.watchdog(), lock.acquiredAt().toString());
        }
    }
}
