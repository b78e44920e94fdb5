/**
 * The aspect: {@link io.github.relock.spring.aop.DistributedLockAdvisor} applies
 * {@link io.github.relock.spring.aop.DistributedLockInterceptor} to annotated methods, whose
 * {@link io.github.relock.spring.aop.LockDefinition}s are built once, at startup, by
 * {@link io.github.relock.spring.aop.LockDefinitionFactory}.
 */
@NullMarked
package io.github.relock.spring.aop;

import org.jspecify.annotations.NullMarked;
