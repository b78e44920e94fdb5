package io.github.relock.core.internal.command;

/**
 * One script call, described rather than made, so that the caller decides how long it may wait for the reply:
 * see {@link LockCommands#send} and {@link LockCommands#sendAsync}.
 *
 * @param keysAndArgs the {@code numKeys} keys, then the arguments
 */
public record ScriptCall(LuaScript<?> script, int numKeys, byte[]... keysAndArgs) {
}
