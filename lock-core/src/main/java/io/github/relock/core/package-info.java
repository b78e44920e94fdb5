/**
 * Reentrant distributed locks on Redis: {@link io.github.relock.core.RedisLockClient} hands out
 * {@link io.github.relock.core.ReentrantDistributedLock} handles backed by one Redis hash per lock.
 */
@NullMarked
package io.github.relock.core;

import org.jspecify.annotations.NullMarked;
