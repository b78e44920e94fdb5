/**
 * The range rules of lock names and settings, shared by the public settings classes and the starter's properties
 * check. Not API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal.settings;

import org.jspecify.annotations.NullMarked;
