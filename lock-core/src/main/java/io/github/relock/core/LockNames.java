package io.github.relock.core;

/**
 * The one rule for naming a lock after a thing: a logical name, a {@code ':'}, and the thing's key
 * ({@code payments:42}). The name must not contain {@code ':'}, so that a lock name splits one way only:
 * name {@code acct} with key {@code audit:7} and name {@code acct:audit} with key {@code 7} would otherwise
 * be the same lock. The starter's {@code @DistributedLock} names its locks through here, and so should code
 * that shares those locks.
 */
public final class LockNames {

    /** Separates the logical name from the key. */
    public static final char SEPARATOR = ':';
    /** Longest lock name, in characters: every script call sends it, and Redis keeps it in every key of the lock. */
    public static final int MAX_LENGTH = 1024;

    private LockNames() {
    }

    /**
     * {@code name + ":" + key}.
     *
     * @throws IllegalArgumentException if the name is blank or contains {@code ':'}, the key is blank, or the
     *                                  result is longer than {@link #MAX_LENGTH}
     */
    public static String of(String name, String key) {
        checkName(name);
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("the key of a lock named '" + name + "' must not be null or blank");
        }
        return check(name + SEPARATOR + key);
    }

    /**
     * Checks a logical name that keys will be appended to.
     *
     * @throws IllegalArgumentException if it is blank or contains {@code ':'}; the message says what to use
     */
    public static String checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a lock name must not be null or blank");
        }
        if (name.indexOf(SEPARATOR) >= 0) {
            throw new IllegalArgumentException("name '" + name + "' contains '" + SEPARATOR + "', which separates the "
                    + "name from the key, so two different locks could share one; use another separator, such as "
                    + name.replace(SEPARATOR, '.'));
        }
        return name;
    }

    /**
     * Checks a complete lock name.
     *
     * @throws IllegalArgumentException if it is blank or longer than {@link #MAX_LENGTH}; the message says what to do
     */
    public static String check(String lockName) {
        if (lockName == null || lockName.isBlank()) {
            throw new IllegalArgumentException("lock name must not be null or blank");
        }
        if (lockName.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_LENGTH + " characters, was "
                    + lockName.length() + " (starting '" + lockName.substring(0, 40) + "...'); lock on a shorter key, "
                    + "such as an id or a hash of the value");
        }
        return lockName;
    }
}
