/**
 * Waiting for a release: a client's local waiters, its release channels over classic or sharded pub/sub, and the
 * turns that say which of its waiters looks next. Not API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal.wait;

import org.jspecify.annotations.NullMarked;
