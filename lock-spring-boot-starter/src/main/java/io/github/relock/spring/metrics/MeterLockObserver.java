package io.github.relock.spring.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.micrometer.core.instrument.MeterRegistry;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostListener;
import io.github.relock.core.LockNames;
import io.github.relock.spring.LockObserver;
import io.github.relock.spring.metrics.RegistryMeters.NameMeters;

/**
 * Meters for a dashboard, per logical lock name ({@code @DistributedLock(name)} or {@code Class.method}), never
 * per key: gauges of the calls holding ({@value #HOLDING}) and waiting for ({@value #WAITING}) their locks, and
 * counters of calls that did not get them ({@value #NOT_ACQUIRED}) and of holds found lost ({@value #LOST}).
 * A name's four meters appear with its first call. Observers on one registry (two contexts sharing it) count
 * into the same meters; closing one removes its listener, and the meters that no open observer still uses.
 */
public final class MeterLockObserver implements LockObserver, AutoCloseable {

    /**
     * Gauge: calls that hold their locks now. Not to be confused with the observation
     * {@link io.github.relock.spring.observation.ObservationLockObserver#HOLD relock.lock.hold}, which times each
     * hold.
     */
    public static final String HOLDING = RegistryMeters.HOLDING;
    /** Gauge: calls waiting for their locks now. */
    public static final String WAITING = RegistryMeters.WAITING;
    /** Counter: calls whose wait time ran out. */
    public static final String NOT_ACQUIRED = RegistryMeters.NOT_ACQUIRED;
    /** Counter: holds the client found lost (lease ran out, key deleted, Redis lost it). */
    public static final String LOST = RegistryMeters.LOST;
    /** Tag: the logical lock name, as on the observations. */
    public static final String NAME_TAG = RegistryMeters.NAME_TAG;
    /** {@value #NAME_TAG} of losses of locks that no {@code @DistributedLock} name covers (taken in code). */
    public static final String OTHER_NAME = "_other";

    private final RegistryMeters shared;
    private final DistributedLockClient client;
    private final LockLostListener lostCounter = this::lockLost;
    private final ConcurrentMap<String, NameMeters> byName = new ConcurrentHashMap<>();
    private @Nullable NameMeters otherLost; // guarded by this: losses of locks no call name covers
    private volatile boolean closed;

    /** Listens for lost locks on {@code client} from now on. */
    public MeterLockObserver(MeterRegistry registry, DistributedLockClient client) {
        this.shared = RegistryMeters.join(registry);
        this.client = client;
        client.addLockLostListener(lostCounter);
    }

    @Override
    public Acquisition acquisitionStarted(String lockName) {
        if (closed) {
            return Acquisition.NOOP; // a late call must not register meters again
        }
        NameMeters meters = byName.computeIfAbsent(lockName, name -> shared.use(name, false));
        meters.waiting.incrementAndGet();
        AtomicBoolean waitEnded = new AtomicBoolean();
        // each count goes down exactly once, whichever way the call ends
        Runnable endWait = () -> {
            if (waitEnded.compareAndSet(false, true)) {
                meters.waiting.decrementAndGet();
            }
        };
        return new Acquisition() {
            @Override
            public Hold acquired() {
                endWait.run();
                meters.held.incrementAndGet();
                AtomicBoolean released = new AtomicBoolean();
                return error -> {
                    if (released.compareAndSet(false, true)) {
                        meters.held.decrementAndGet();
                    }
                };
            }

            @Override
            public void notAcquired() {
                endWait.run();
                meters.notAcquired.increment();
            }

            @Override
            public void failed(Throwable error) {
                endWait.run();
            }
        };
    }

    /** Counted under the logical name, the part before the first ':' ({@link LockNames}), if a call used it. */
    private void lockLost(LockLostEvent event) {
        String lockName = event.lockName();
        int separator = lockName.indexOf(LockNames.SEPARATOR);
        NameMeters meters = byName.get(separator < 0 ? lockName : lockName.substring(0, separator));
        // an unknown name may be a key of a lock taken in code: it must not become a tag value
        NameMeters counted = meters != null ? meters : otherLost();
        if (counted != null) {
            counted.lost.increment();
        }
    }

    private synchronized @Nullable NameMeters otherLost() {
        if (closed) {
            return null;
        }
        if (otherLost == null) {
            otherLost = shared.use(OTHER_NAME, true);
        }
        return otherLost;
    }

    /** Stops counting and gives this observer's names back; a second call does nothing. */
    @Override
    public void close() {
        List<String> used;
        synchronized (this) {
            if (closed) {
                return; // leaving twice would take another observer's place in the shared meters
            }
            closed = true;
            used = new ArrayList<>(byName.keySet());
            if (otherLost != null) {
                used.add(OTHER_NAME);
            }
        }
        client.removeLockLostListener(lostCounter);
        shared.leave(used);
        byName.clear();
    }
}
