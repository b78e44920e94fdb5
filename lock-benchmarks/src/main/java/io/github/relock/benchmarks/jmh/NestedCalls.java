package io.github.relock.benchmarks.jmh;

import io.github.relock.spring.DistributedLock;

/** The outer service of {@link NestedLockBenchmark}: each call locks an order, then calls {@link Inventory}. */
public class NestedCalls {

    private final Inventory inventory;

    public NestedCalls(Inventory inventory) {
        this.inventory = inventory;
    }

    @DistributedLock(name = "order", key = "#orderId")
    public long payWithLockedReserve(String orderId) {
        return inventory.reserve(orderId);
    }

    @DistributedLock(name = "order", key = "#orderId")
    public long payWithPlainReserve(String orderId) {
        return inventory.reservePlain(orderId);
    }

    /** The inner service: the same work, once under the same lock (a nested, re-entrant call), once without. */
    public static class Inventory {

        private long reserved;

        @DistributedLock(name = "order", key = "#orderId")
        public long reserve(String orderId) {
            return ++reserved;
        }

        public long reservePlain(String orderId) {
            return ++reserved;
        }
    }
}
