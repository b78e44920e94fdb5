package io.github.relock.core.internal;

/**
 * What a plain lock's release announcement means for one client (see turns.lua): {@code +} and the line of
 * waiting clients (each id followed by {@code :}) says the freed lock is kept a moment for the first of
 * them; {@code -} and the line says its first client took the lock on its turn. Anything else (the
 * releaser's owner id, or nothing) is a release for whoever comes first.
 */
enum TurnMessage {
    /** A release for whoever comes first: wake a waiter. */
    OPEN,
    /** The lock is kept for this client: wake a waiter, even while stepping back. */
    MINE,
    /** The lock is kept for another client: look only once that turn has lapsed, in case that client never comes. */
    OTHERS_TURN,
    /** Another client took its turn and this one is in line after it (or it was this client): nothing to do. */
    IN_LINE,
    /** Another client took its turn and this one is not in line: a waiter looks, and so takes a turn. */
    NOT_IN_LINE;

    /** @param ownClient this client's id followed by {@code :}, as its owner ids begin */
    static TurnMessage of(String message, String ownClient) {
        if (message.length() < 3 || message.charAt(message.length() - 1) != ':') {
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
        return first || message.contains(":" + ownClient) ? IN_LINE : NOT_IN_LINE;
    }
}
