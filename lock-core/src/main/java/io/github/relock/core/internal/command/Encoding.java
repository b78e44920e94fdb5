package io.github.relock.core.internal.command;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How names and numbers travel to the scripts: names as UTF-8, numbers in the decimal form Lua's
 * {@code tonumber} reads. Small numbers come from a shared table, so callers must never modify an array
 * they get from here.
 */
public final class Encoding {

    /** Hold counts below this are sent from the table instead of being formatted per call. */
    private static final int SMALL_NUMBERS = 256;
    private static final byte[][] SMALL = new byte[SMALL_NUMBERS][];

    static {
        for (int i = 0; i < SMALL_NUMBERS; i++) {
            SMALL[i] = Long.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private Encoding() {
    }

    public static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code head} followed by {@code tail}, in a new array. */
    static byte[] concat(byte[] head, byte[] tail) {
        byte[] joined = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, joined, head.length, tail.length);
        return joined;
    }

    public static byte[] bytes(long value) {
        if (value >= 0 && value < SMALL_NUMBERS) {
            return SMALL[(int) value];
        }
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /** A script reply element as a number: Lettuce gives integers as Long, some paths as bytes. */
    static long asLong(Object value) {
        if (value instanceof Number number) {
            return number.longValue();
        }
        if (value instanceof byte[] raw) {
            return Long.parseLong(new String(raw, StandardCharsets.UTF_8));
        }
        throw new IllegalStateException("Unexpected script reply element: " + value);
    }

    /** A number and its encoded form, published together so that a reader never sees one without the other. */
    record EncodedNumber(long value, byte[] bytes) {
    }
}
