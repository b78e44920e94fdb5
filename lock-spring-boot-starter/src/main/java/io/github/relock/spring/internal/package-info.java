/**
 * The aspect's machinery, not API: {@link io.github.relock.spring.internal.DistributedLockAdvisor} applies
 * {@link io.github.relock.spring.internal.DistributedLockInterceptor} to annotated methods, whose
 * {@link io.github.relock.spring.internal.LockDefinition}s are built once, at startup, by
 * {@link io.github.relock.spring.internal.LockDefinitionFactory}. Its types may change in any release; the
 * extension points live in {@code io.github.relock.spring}.
 */
@NullMarked
package io.github.relock.spring.internal;

import org.jspecify.annotations.NullMarked;
