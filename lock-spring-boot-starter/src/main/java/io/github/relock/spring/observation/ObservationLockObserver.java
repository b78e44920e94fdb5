package io.github.relock.spring.observation;

import java.util.function.Supplier;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.github.relock.spring.LockObserver;

/**
 * Reports {@code @DistributedLock} calls as two Micrometer observations: {@value #ACQUIRE} (the wait,
 * tagged with the outcome) and {@value #HOLD} (from acquisition to release). Both carry the logical
 * lock name only: the resolved key would make one time series per order id.
 */
public final class ObservationLockObserver implements LockObserver {

    /** Observation of waiting for and taking the locks of one call. */
    public static final String ACQUIRE = "relock.lock.acquire";
    /**
     * Observation of holding the locks of one call, from acquisition to release: with Micrometer's default
     * handler, a timer of that name (and a long task timer {@code relock.lock.hold.active}). The gauge of calls
     * holding their locks now is {@link io.github.relock.spring.metrics.MeterLockObserver#HOLDING
     * relock.calls.holding}.
     */
    public static final String HOLD = "relock.lock.hold";
    /** Tag: the logical lock name ({@code @DistributedLock(name)} or {@code Class.method}). */
    public static final String NAME_TAG = "relock.lock.name";
    /** Tag on {@value #ACQUIRE}: {@code acquired}, {@code not_acquired} or {@code error}. */
    public static final String OUTCOME_TAG = "relock.lock.outcome";

    private final Supplier<ObservationRegistry> registry;

    /** @param registry looked up when a call first needs it, so the registry bean is not created early */
    public ObservationLockObserver(Supplier<ObservationRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Acquisition acquisitionStarted(String lockName) {
        ObservationRegistry observations = registry.get();
        if (observations.isNoop()) {
            return Acquisition.NOOP;
        }
        KeyValue name = KeyValue.of(NAME_TAG, lockName);
        Observation acquire = Observation.createNotStarted(ACQUIRE, observations)
                .contextualName("acquire lock " + lockName)
                .lowCardinalityKeyValue(name)
                .start();
        return new Acquisition() {
            @Override
            public Hold acquired() {
                acquire.lowCardinalityKeyValue(OUTCOME_TAG, "acquired").stop();
                Observation held = Observation.createNotStarted(HOLD, observations)
                        .contextualName("hold lock " + lockName)
                        .lowCardinalityKeyValue(name)
                        .start();
                return error -> {
                    if (error != null) {
                        held.error(error);
                    }
                    held.stop();
                };
            }

            @Override
            public void notAcquired() {
                acquire.lowCardinalityKeyValue(OUTCOME_TAG, "not_acquired").stop();
            }

            @Override
            public void failed(Throwable error) {
                acquire.lowCardinalityKeyValue(OUTCOME_TAG, "error").error(error).stop();
            }
        };
    }
}
