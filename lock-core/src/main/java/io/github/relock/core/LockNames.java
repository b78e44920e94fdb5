package io.github.relock.core;

import io.github.relock.core.internal.settings.SettingRules;

/**
 * The one rule for naming a lock after a thing: a logical name, a {@code ':'}, and the thing's key
 * ({@code payments:42}). The name must not contain {@code ':'}, so that a lock name splits one way only:
 * name {@code acct} with key {@code audit:7} and name {@code acct:audit} with key {@code 7} would otherwise
 * be the same lock. The starter's {@code @DistributedLock} names its locks through here, and so should code
 * that shares those locks.
 */
public final class LockNames {

    /** Separates the logical name from the key. */
    public static final char SEPARATOR = SettingRules.NAME_SEPARATOR;
    /** Longest lock name, in characters: every script call sends it, and Redis keeps it in every key of the lock. */
    public static final int MAX_LENGTH = SettingRules.MAX_NAME_LENGTH;

    private LockNames() {
    }

    /**
     * {@code name + ":" + key}.
     *
     * @throws IllegalArgumentException if the name is blank or contains {@code ':'}, the key is blank, or the
     *                                  result is longer than {@link #MAX_LENGTH}
     */
    public static String of(String name, String key) {
        SettingRules.checkLogicalName(name);
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("the key of a lock named '" + name + "' must not be null or blank");
        }
        return SettingRules.checkLockName(name + SEPARATOR + key);
    }
}
