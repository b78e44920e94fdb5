package io.github.relock.core.internal.wait;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Reads the announcement of a read-write lock's release that let waiters in ({@code rw-release.lua}): for each,
 * its field and the fencing token of the hold the release gave it. Each entry is {@code <token> <length> <field>}, the field's
 * length counted in UTF-8 bytes, and the entries follow one another with nothing between them: the lengths, not
 * a separator, say where a field ends, so a field may hold any character (a client name may).
 */
final class GivenHolds {

    private GivenHolds() {
    }

    /**
     * Each waiter's field with the token of its hold; null if {@code message} is not such a list (then nobody can
     * take a hold up from it, and every waiter tries again instead).
     */
    static @Nullable Map<String, Long> parse(String message) {
        Map<String, Long> given = new HashMap<>();
        int at = 0;
        while (at < message.length()) {
            int tokenEnd = message.indexOf(' ', at);
            int lengthEnd = tokenEnd < 0 ? -1 : message.indexOf(' ', tokenEnd + 1);
            if (lengthEnd < 0) {
                return null;
            }
            long token = number(message, at, tokenEnd);
            long bytes = number(message, tokenEnd + 1, lengthEnd);
            int fieldEnd = skipBytes(message, lengthEnd + 1, bytes);
            if (token <= 0 || fieldEnd < 0) {
                return null;
            }
            given.put(message.substring(lengthEnd + 1, fieldEnd), token);
            at = fieldEnd;
        }
        return given.isEmpty() ? null : given;
    }

    /** The decimal number in {@code text} from {@code from} to {@code to}; -1 if there is none there. */
    private static long number(String text, int from, int to) {
        if (to <= from || to - from > 18) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /**
     * Where the {@code bytes} UTF-8 bytes that start at {@code from} end, as a char index; -1 if {@code text} ends
     * first, or a character straddles that end (what Redis sent is then not this list).
     */
    private static int skipBytes(String text, int from, long bytes) {
        if (bytes < 0) {
            return -1;
        }
        long left = bytes;
        int at = from;
        while (left > 0 && at < text.length()) {
            char c = text.charAt(at);
            boolean pair = Character.isHighSurrogate(c) && at + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(at + 1));
            if (pair) {
                left -= 4;
                at += 2;
            }
            else {
                left -= c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
                at++;
            }
        }
        return left == 0 ? at : -1;
    }
}
