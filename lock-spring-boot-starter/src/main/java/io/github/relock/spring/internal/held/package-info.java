/**
 * The locks that running {@code @DistributedLock} calls hold, on each thread and in each reactive chain, as the
 * aspect records them and {@link io.github.relock.spring.CurrentLock} and the transaction guard read them, without a
 * Redis round trip (not API: its types may change in any release).
 */
@NullMarked
package io.github.relock.spring.internal.held;

import org.jspecify.annotations.NullMarked;
