/**
 * The lock's machinery: scripts and the Redis calls that run them, waiting for a release, renewing
 * leases. Not API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal;

import org.jspecify.annotations.NullMarked;
