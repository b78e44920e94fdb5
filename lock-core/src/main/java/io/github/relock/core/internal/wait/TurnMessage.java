package io.github.relock.core.internal.wait;

/**
 * What a plain lock's release announcement means for one client (see turns.lua): {@code +} and the line of
 * waiting clients (each id followed by {@code :}) says the freed lock is kept a moment for the first of
 * them; {@code -} and the line says its first client took the lock on its turn, followed by the lease it took
 * it for, in ms. Anything else (the releaser's owner id, or nothing) is a release for whoever comes first.
 */
enum TurnMessage {
    /** A release for whoever comes first: wake a waiter. */
    OPEN,
    /** The lock is kept for this client: wake a waiter. */
    MINE,
    /** The lock is kept for another client: look only once that turn has lapsed, in case that client never comes. */
    OTHERS_TURN,
    /** This client took the lock on its turn: its own waiters are behind that hold. */
    TAKEN_BY_ME,
    /**
     * Another client took its turn and this one is in line behind it: named in its turn, but its waiters sleep
     * on what an attempt before that turn said (the previous holder's lease), while the new hold may end
     * unreleased much sooner, so one looks once the taken lease ({@link #takenLeaseMillis}) has ended.
     */
    BEHIND,
    /** Another client took its turn and this one is not in line: a waiter looks, and so takes a turn. */
    NOT_IN_LINE;

    /** @param ownClient this client's id followed by {@code :}, as its owner ids begin */
    static TurnMessage of(String message, String ownClient) {
        int end = lineEnd(message);
        if (end < 3 || message.charAt(end - 1) != ':') {
            return OPEN; // an owner id goes on after its client id's colon
        }
        char kind = message.charAt(0);
        if (kind != '+' && kind != '-') {
            return OPEN;
        }
        boolean first = message.startsWith(ownClient, 1);
        if (kind == '+') {
            return first ? MINE : OTHERS_TURN;
        }
        if (first) {
            return TAKEN_BY_ME;
        }
        return message.substring(0, end).contains(":" + ownClient) ? BEHIND : NOT_IN_LINE;
    }

    /** The lease a turn was taken for ({@code -} messages), in ms; -1 if the message tells none. */
    static long takenLeaseMillis(String message) {
        int end = lineEnd(message);
        if (message.isEmpty() || message.charAt(0) != '-' || end == message.length()) {
            return -1;
        }
        try {
            return Long.parseLong(message, end, message.length(), 10);
        }
        catch (NumberFormatException ex) {
            return -1; // too long to be a lease
        }
    }

    /** Where the line ends: a {@code -} message goes on with the lease's digits. */
    private static int lineEnd(String message) {
        int end = message.length();
        if (!message.isEmpty() && message.charAt(0) == '-') {
            while (end > 1 && message.charAt(end - 1) >= '0' && message.charAt(end - 1) <= '9') {
                end--;
            }
        }
        return end;
    }
}
