package io.github.relock.spring.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The relock meters of one {@link MeterRegistry}, shared by every {@link MeterLockObserver} that reports to it
 * (two application contexts can share a registry): a registry keeps one meter per name and tags, so the
 * observers must count into the same gauge values, and a name's meters go only when its last user closes.
 */
final class RegistryMeters {

    // the meters' names and tag, published (and documented) as MeterLockObserver's constants
    static final String HOLDING = "relock.calls.holding";
    static final String WAITING = "relock.calls.waiting";
    static final String NOT_ACQUIRED = "relock.lock.not.acquired";
    static final String LOST = "relock.lock.lost";
    static final String NAME_TAG = "relock.lock.name";

    // one entry per registry in use; an entry goes when its last observer closes
    private static final Map<MeterRegistry, RegistryMeters> IN_USE = new IdentityHashMap<>();

    private final MeterRegistry registry;
    private final Map<String, NameMeters> byName = new HashMap<>();
    private int observers;

    private RegistryMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The shared meters of {@code registry}, counting one more observer until {@link #leave()}. */
    static RegistryMeters join(MeterRegistry registry) {
        synchronized (IN_USE) {
            RegistryMeters meters = IN_USE.computeIfAbsent(registry, RegistryMeters::new);
            meters.observers++;
            return meters;
        }
    }

    /** One observer fewer; {@code names} are the names it used, each given back once. */
    void leave(Iterable<String> names) {
        synchronized (IN_USE) {
            names.forEach(this::giveBack);
            if (--observers == 0) {
                IN_USE.remove(registry);
            }
        }
    }

    /**
     * The meters of a name, registered by its first user. A call name gets all four; {@code lostOnly} is for the
     * name of losses of locks that no call name covers, where only losses are ever counted.
     */
    NameMeters use(String name, boolean lostOnly) {
        synchronized (IN_USE) {
            NameMeters meters = byName.get(name);
            if (meters == null || !lostOnly && meters.notAcquired == null) {
                // a call may be named like the losses-only name: it then gets the rest (the lost counter is reused)
                NameMeters complete = register(name, lostOnly);
                complete.users = meters == null ? 0 : meters.users;
                byName.put(name, complete);
                meters = complete;
            }
            meters.users++;
            return meters;
        }
    }

    private void giveBack(String name) {
        NameMeters meters = byName.get(name);
        if (meters != null && --meters.users == 0) {
            byName.remove(name);
            meters.registered.forEach(registry::remove);
        }
    }

    private NameMeters register(String name, boolean lostOnly) {
        Counter lost = Counter.builder(LOST).tag(NAME_TAG, name)
                .description("Locks found lost while held").register(registry);
        Counter notAcquired = lostOnly ? null : Counter.builder(NOT_ACQUIRED).tag(NAME_TAG, name)
                .description("@DistributedLock calls whose wait time ran out").register(registry);
        NameMeters meters = new NameMeters(lost, notAcquired);
        meters.registered.add(lost);
        if (!lostOnly) {
            meters.registered.add(notAcquired);
            meters.registered.add(Gauge.builder(HOLDING, meters.held, AtomicInteger::get)
                    .tag(NAME_TAG, name).strongReference(true)
                    .description("@DistributedLock calls holding their locks").register(registry));
            meters.registered.add(Gauge.builder(WAITING, meters.waiting, AtomicInteger::get)
                    .tag(NAME_TAG, name).strongReference(true)
                    .description("@DistributedLock calls waiting for their locks").register(registry));
        }
        return meters;
    }

    /** The counts behind one name's meters; users is guarded by the registry lock. */
    static final class NameMeters {
        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger waiting = new AtomicInteger();
        final Counter lost;
        final Counter notAcquired; // null for the name of losses only
        final List<Meter> registered = new ArrayList<>(4);
        int users;

        NameMeters(Counter lost, Counter notAcquired) {
            this.lost = lost;
            this.notAcquired = notAcquired;
        }
    }
}
