package io.github.relock.spring.aop;

/**
 * Where the timings of an annotation that leaves {@code waitTime} or {@code leaseTime} empty come from:
 * {@code relock.locks.<name>.*}, else {@code relock.*}.
 */
@FunctionalInterface
public interface LockTimingDefaults {

    /** The configured timings for a logical lock name. */
    LockTimings forLock(String name);
}
