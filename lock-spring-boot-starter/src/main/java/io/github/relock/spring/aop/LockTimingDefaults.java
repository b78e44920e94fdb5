package io.github.relock.spring.aop;

import io.github.relock.core.LockSettings;

/**
 * Where the settings of an annotation that leaves {@code waitTime} or {@code leaseTime} empty come from:
 * {@code relock.locks.<name>.*}, else {@code relock.*}.
 */
@FunctionalInterface
public interface LockTimingDefaults {

    /** The configured settings for a logical lock name. */
    LockSettings forLock(String name);
}
