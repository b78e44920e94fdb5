package io.github.relock.core.internal;

import java.nio.charset.StandardCharsets;

/**
 * The Redis names that belong to one lock. The lock name sits in a hash tag so that every key of the
 * lock lands in the same Redis Cluster slot, which is what lets one script touch them all.
 *
 * <p>The keys are also kept UTF-8 encoded, once per handle, because every script call sends them.
 * The arrays are shared: callers must never modify them.
 */
public final class LockKeys {

    private final String name;
    private final String lock;
    private final String fence;
    private final String channel;
    private final byte[] lockBytes;
    private final byte[] fenceBytes;
    private final byte[] channelBytes;
    /** Which client a freed plain lock is kept for a moment (see acquire.lua): the hash's name + {@code :turn}. */
    private final byte[] turnBytes;
    private final LockKind kind;

    /**
     * @param name    the lock's name
     * @param lock    the hash: owner id to hold count, e.g. {@code lock:{order:42}}
     * @param fence   the last fencing token issued, e.g. {@code lock:{order:42}:fence}
     * @param channel where a release is announced, e.g. {@code lock:{order:42}:released}
     */
    public LockKeys(String name, String lock, String fence, String channel) {
        this(name, lock, fence, channel, ExclusiveKind.INSTANCE);
    }

    /** @param kind the kind of lock these keys belong to: its scripts and its hash layout */
    LockKeys(String name, String lock, String fence, String channel, LockKind kind) {
        this.name = name;
        this.lock = lock;
        this.fence = fence;
        this.channel = channel;
        this.lockBytes = lock.getBytes(StandardCharsets.UTF_8);
        this.fenceBytes = fence.getBytes(StandardCharsets.UTF_8);
        this.channelBytes = channel.getBytes(StandardCharsets.UTF_8);
        this.turnBytes = (lock + ":turn").getBytes(StandardCharsets.UTF_8);
        this.kind = kind;
    }

    /**
     * The keys of lock {@code name}: the name goes in the hash tag with {@code %} and {@code }} escaped
     * ({@code %25}, {@code %7D}), so the tag is never empty, ends where the name ends (every key of the lock in
     * one Cluster slot), and two names never share a key.
     */
    public static LockKeys of(String prefix, String name) {
        String lock = prefix + "{" + hashTag(name) + "}";
        return new LockKeys(name, lock, lock + ":fence", lock + ":released");
    }

    private static String hashTag(String name) {
        if (name.indexOf('%') < 0 && name.indexOf('}') < 0) {
            return name;
        }
        StringBuilder tag = new StringBuilder(name.length() + 8);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '%' -> tag.append("%25");
                case '}' -> tag.append("%7D");
                default -> tag.append(c);
            }
        }
        return tag.toString();
    }

    public String name() {
        return name;
    }

    public String lock() {
        return lock;
    }

    public String fence() {
        return fence;
    }

    public String channel() {
        return channel;
    }

    LockKind kind() {
        return kind;
    }

    byte[] lockBytes() {
        return lockBytes;
    }

    byte[] fenceBytes() {
        return fenceBytes;
    }

    byte[] channelBytes() {
        return channelBytes;
    }

    byte[] turnBytes() {
        return turnBytes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockKeys keys && name.equals(keys.name) && lock.equals(keys.lock)
                && fence.equals(keys.fence) && channel.equals(keys.channel);
    }

    @Override
    public int hashCode() {
        return lock.hashCode();
    }

    @Override
    public String toString() {
        return "LockKeys[name=" + name + ", lock=" + lock + ", fence=" + fence + ", channel=" + channel + "]";
    }
}
