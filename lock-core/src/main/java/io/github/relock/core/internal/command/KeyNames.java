package io.github.relock.core.internal.command;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;


/**
 * The Redis names that belong to one lock, and nothing else: what the commands and scripts are sent. The lock
 * name sits in a hash tag so that every key of the lock lands in the same Redis Cluster slot, which is what lets
 * one script touch them all. A lock's handle and holds keep them as {@code LockKeys}, which adds the lock's kind.
 *
 * <p>Every hold keeps its keys, so only the lock key is stored, UTF-8 encoded as every script call sends it;
 * the name and the companion keys are derived from it when asked for. The arrays handed out may be shared:
 * callers must never modify them.
 */
public class KeyNames {

    /** After the lock key: the channel where a release is announced. */
    public static final byte[] RELEASED = Encoding.bytes(":released");
    private static final byte[] FENCE_SUFFIX = Encoding.bytes(":fence");
    /** After the lock key: the line of clients waiting for a turn (see turns.lua). */
    private static final byte[] TURN_SUFFIX = Encoding.bytes(":turn");
    /** After a plain lock's key: the fair lock of the same name (see {@code FairKind}). */
    public static final String FAIR_SUFFIX = ":fair";
    private static final byte[] FAIR_SUFFIX_BYTES = Encoding.bytes(FAIR_SUFFIX);

    /** The name as given if it has surrogates (a lone one encodes as '?', so the key cannot give it back); else null. */
    private final @Nullable String name;
    private final byte[] lockBytes;
    /** Where the hash tag's content starts in {@link #lockBytes}. */
    private final int tagStart;
    private final byte[] channelSuffix;
    /**
     * The companion keys, built when a call first needs them and then kept by this handle's keys, which every
     * call sends; a hold keeps a copy without them ({@code LockKeys.slim()}), so that many held locks stay small.
     */
    private volatile byte @Nullable [] fenceBytes;
    private volatile byte @Nullable [] channelBytes;
    private volatile byte @Nullable [] turnBytes;
    /** A plain lock's: the fair lock of the same name and its fencing counter, which acquire.lua looks at. */
    private volatile byte @Nullable [] fairBytes;
    private volatile byte @Nullable [] fairFenceBytes;
    private volatile @Nullable String channel;

    /**
     * The keys {@code prefix{name}lockSuffix} (the hash), its {@code :fence} and its channel.
     *
     * @param lockSuffix    after the hash tag, e.g. {@code ":fair"}; empty for an exclusive lock
     * @param channelSuffix after the lock key: where a release is announced, e.g. {@link #RELEASED}; a shared
     *                      constant, since every hold keeps it
     */
    protected KeyNames(String prefix, String name, String lockSuffix, byte[] channelSuffix) {
        this.lockBytes = Encoding.bytes(prefix + "{" + hashTag(name) + "}" + lockSuffix);
        this.tagStart = Encoding.bytes(prefix).length + 1;
        this.name = hasSurrogate(name) ? name : null;
        this.channelSuffix = channelSuffix;
    }

    /** The same names without the companions built so far. */
    protected KeyNames(KeyNames keys) {
        this.lockBytes = keys.lockBytes;
        this.tagStart = keys.tagStart;
        this.name = keys.name;
        this.channelSuffix = keys.channelSuffix;
    }

    /** Whether a companion key has been built and kept since these names were made. */
    protected final boolean companionsBuilt() {
        return fenceBytes != null || channelBytes != null || turnBytes != null || channel != null || fairBytes != null
                || fairFenceBytes != null;
    }

    private static boolean hasSurrogate(String name) {
        for (int i = 0; i < name.length(); i++) {
            if (Character.isSurrogate(name.charAt(i))) {
                return true;
            }
        }
        return false;
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
        if (name != null) {
            return name;
        }
        int end = tagStart;
        while (lockBytes[end] != '}') { // the tag's own '}' are escaped, and no UTF-8 sequence holds the byte
            end++;
        }
        String tag = new String(lockBytes, tagStart, end - tagStart, StandardCharsets.UTF_8);
        return tag.indexOf('%') < 0 ? tag : tag.replace("%7D", "}").replace("%25", "%");
    }

    public String lock() {
        return new String(lockBytes, StandardCharsets.UTF_8);
    }

    public String fence() {
        return new String(fenceBytes(), StandardCharsets.UTF_8);
    }

    public String channel() {
        String built = channel;
        if (built == null) {
            built = new String(channelBytes(), StandardCharsets.UTF_8);
            channel = built;
        }
        return built;
    }

    public byte[] lockBytes() {
        return lockBytes;
    }

    public byte[] fenceBytes() {
        byte[] built = fenceBytes;
        if (built == null) {
            built = Encoding.concat(lockBytes, FENCE_SUFFIX);
            fenceBytes = built;
        }
        return built;
    }

    public byte[] channelBytes() {
        byte[] built = channelBytes;
        if (built == null) {
            built = Encoding.concat(lockBytes, channelSuffix);
            channelBytes = built;
        }
        return built;
    }

    byte[] turnBytes() {
        byte[] built = turnBytes;
        if (built == null) {
            built = Encoding.concat(lockBytes, TURN_SUFFIX);
            turnBytes = built;
        }
        return built;
    }

    /** A plain lock's: the hash of the fair lock of the same name. */
    byte[] fairBytes() {
        byte[] built = fairBytes;
        if (built == null) {
            built = Encoding.concat(lockBytes, FAIR_SUFFIX_BYTES);
            fairBytes = built;
        }
        return built;
    }

    /** A plain lock's: the fencing counter of the fair lock of the same name. */
    byte[] fairFenceBytes() {
        byte[] built = fairFenceBytes;
        if (built == null) {
            built = Encoding.concat(fairBytes(), FENCE_SUFFIX);
            fairFenceBytes = built;
        }
        return built;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KeyNames keys && Arrays.equals(lockBytes, keys.lockBytes)
                && Arrays.equals(channelSuffix, keys.channelSuffix) && name().equals(keys.name());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(lockBytes);
    }

    @Override
    public String toString() {
        return "LockKeys[name=" + name() + ", lock=" + lock() + ", fence=" + fence() + ", channel=" + channel() + "]";
    }
}
