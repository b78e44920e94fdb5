package io.github.relock.sample.reactive;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.HeldLock;
import io.github.relock.core.LockOwner;
import reactor.core.publisher.Mono;

/**
 * The lock that an enclosing reactive {@code @DistributedLock} method holds for this subscription chain: its hold
 * count and fencing token, as the lock client last saw them (no Redis round trip, nothing blocks).
 */
public final class HeldByChain {

    /** Where the starter keeps the chain's lock owner in the Reactor Context (README, "Reactive methods"). */
    static final String OWNER_KEY = "io.github.relock.spring.owner";

    private HeldByChain() {
    }

    /**
     * The chain's hold on {@code lockName}. Fails with {@link IllegalStateException} outside a locked publisher,
     * so that work which needs the lock never goes ahead without it.
     */
    public static Mono<HeldLock> lock(DistributedLockClient client, String lockName) {
        return Mono.deferContextual(context -> {
            Object owner = context.getOrDefault(OWNER_KEY, null);
            if (!(owner instanceof LockOwner chainOwner)) {
                return Mono.error(new IllegalStateException("Not inside a @DistributedLock Mono or Flux: nothing holds "
                        + "lock '" + lockName + "' for this call. Annotate the method that returns this publisher."));
            }
            return client.heldLocks().stream()
                    .filter(held -> held.name().equals(lockName) && held.ownerId().equals(chainOwner.id()))
                    .findFirst()
                    .map(Mono::just)
                    .orElseGet(() -> Mono.error(new IllegalStateException("Lock '" + lockName + "' is not held by "
                            + chainOwner + "; is the @DistributedLock key the same as the one asked for here?")));
        });
    }
}
