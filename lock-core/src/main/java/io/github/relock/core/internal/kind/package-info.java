/**
 * Lock kinds: a lock's Redis names with its kind, and what sets the exclusive, fair and read-write kinds apart
 * (their scripts, hash fields and wake-ups). Not API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal.kind;

import org.jspecify.annotations.NullMarked;
