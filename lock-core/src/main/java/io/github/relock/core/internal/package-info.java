/**
 * The lock's machinery, in sub-packages whose dependencies run one way, each using only those after it:
 * {@code client} (the lock handles), {@code lock} (acquire, release, hand-off), {@code wait} (release channels and
 * local waiters), {@code hold} (holds and their renewal), {@code kind} (what sets each lock kind apart),
 * {@code command} (scripts and their calls), {@code redis} (Redis I/O); {@code settings} (range rules) may be used by
 * any. Not API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal;

import org.jspecify.annotations.NullMarked;
