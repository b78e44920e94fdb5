package io.github.relock.spring.internal;

/**
 * What startup does about a bean that calls one of its own {@code @DistributedLock} methods ({@code this.pay(...)}),
 * which skips the proxy and runs that method without its lock: {@code relock.self-invocation}.
 */
public enum SelfInvocationReaction {

    /** Log a warning naming the caller, the called method and what to do (the default). */
    WARN,

    /** Fail startup with the same message. */
    FAIL,

    /** Say nothing: the application knows, and calls those methods through the proxy where it matters. */
    IGNORE
}
