/**
 * The starter's public API: the {@link io.github.relock.spring.DistributedLock @DistributedLock}
 * annotation, its exceptions, and the extension points {@link io.github.relock.spring.LockFailureHandler},
 * {@link io.github.relock.spring.LockKeyResolver} and {@link io.github.relock.spring.LockObserver} (what metrics
 * and tracing plug into).
 */
@NullMarked
package io.github.relock.spring;

import org.jspecify.annotations.NullMarked;
