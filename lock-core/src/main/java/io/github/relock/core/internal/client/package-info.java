/**
 * The lock handles a client gives out (reentrant, read-write, multi) and the runtime that builds, shares and closes
 * their per-client services. Not API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal.client;

import org.jspecify.annotations.NullMarked;
