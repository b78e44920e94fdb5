/**
 * Redis I/O: the lock's commands sent through Lettuce's asynchronous API, each completing a future, with the
 * one translation of a failure into Spring's {@code DataAccessException}.
 */
@NullMarked
package io.github.relock.core.internal.redis;

import org.jspecify.annotations.NullMarked;
