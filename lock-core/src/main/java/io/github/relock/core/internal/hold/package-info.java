/**
 * Holds: what a client knows of each owner's hold on each lock, and the watchdog that renews their leases. Not API:
 * names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal.hold;

import org.jspecify.annotations.NullMarked;
