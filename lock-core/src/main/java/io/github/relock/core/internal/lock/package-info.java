/**
 * Lock operations: one acquisition or release round trip, the synchronous and asynchronous waits built on it, and
 * the local hand-off of a released lock, each a service built once per client that takes the lock per call. Not
 * API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal.lock;

import org.jspecify.annotations.NullMarked;
