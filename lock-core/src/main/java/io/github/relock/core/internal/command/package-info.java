/**
 * Lock commands: the Lua scripts, their calls and replies, replica acknowledgement, the driver checks and the words for
 * a failed call. Not API: names and signatures here may change in any release.
 */
@NullMarked
package io.github.relock.core.internal.command;

import org.jspecify.annotations.NullMarked;
