package io.github.relock.spring.internal;

import io.github.relock.core.LockSettings;

/**
 * Where the settings of an annotation that leaves {@code waitTime} or {@code leaseTime} empty come from:
 * {@code relock.locks.<name>.*}, else {@code relock.*}; and whether a lock name is fair.
 */
@FunctionalInterface
public interface LockTimingDefaults {

    /** The configured settings for a logical lock name. */
    LockSettings forLock(String name);

    /** Whether {@code relock.locks.<name>.fair} makes the lock fair; false unless set. */
    default boolean fair(String name) {
        return false;
    }
}
