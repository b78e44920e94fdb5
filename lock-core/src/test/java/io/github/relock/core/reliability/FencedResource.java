package io.github.relock.core.reliability;

import java.util.HashMap;
import java.util.Map;

/**
 * A resource that protects itself with fencing tokens, the way a database row with a "last token"
 * column would: a write carrying a token lower than the highest one seen is refused. It also holds a
 * counter per key that callers increment with an unprotected read-modify-write, so that two writers
 * inside the critical section at once lose an update.
 *
 * <p>Ground truth for judging writes comes from {@link #granted}: the test tells the resource which
 * hold the lock most recently granted for a key. A write from any other hold is stale. The resource
 * counts stale writes it refused (good), stale writes it accepted (fencing failed) and current writes
 * it refused (tokens went backwards).
 */
public final class FencedResource {

    private static final class Cell {
        long highestToken = Long.MIN_VALUE;
        long value;
        long accepted;
        String currentHold = "";
    }

    private final Map<String, Cell> cells = new HashMap<>();
    private long staleRefused;
    private long staleAccepted;
    private long currentRefused;
    private long accepted;

    /** The lock just granted {@code key} to {@code holdId}: from now on every other hold is stale. */
    public synchronized void granted(String key, String holdId) {
        cell(key).currentHold = holdId;
    }

    /**
     * As {@link #granted}, and the new hold shows its token at once, as a fenced holder's first statement
     * would: a lower token is refused from now on, even before this hold writes. False (counted as a current
     * write refused) if the token is lower than one seen already.
     */
    public synchronized boolean grantedWith(String key, String holdId, long token) {
        Cell cell = cell(key);
        cell.currentHold = holdId;
        if (token < cell.highestToken) {
            currentRefused++;
            return false;
        }
        cell.highestToken = token;
        return true;
    }

    synchronized long read(String key) {
        return cell(key).value;
    }

    /** Writes {@code value} if {@code token} is not below the highest token seen; returns whether it was accepted. */
    public synchronized boolean write(String key, String holdId, long token, long value) {
        Cell cell = cell(key);
        boolean stale = !cell.currentHold.equals(holdId);
        if (token < cell.highestToken) {
            if (stale) {
                staleRefused++;
            }
            else {
                currentRefused++;
            }
            return false;
        }
        cell.highestToken = token;
        cell.value = value;
        cell.accepted++;
        accepted++;
        if (stale) {
            staleAccepted++;
        }
        return true;
    }

    /** Accepted increments that the counters do not show: two writers overwrote each other. */
    synchronized long lostUpdates() {
        long lost = 0;
        for (Cell cell : cells.values()) {
            lost += cell.accepted - cell.value;
        }
        return lost;
    }

    public synchronized long staleRefused() {
        return staleRefused;
    }

    public synchronized long staleAccepted() {
        return staleAccepted;
    }

    public synchronized long currentRefused() {
        return currentRefused;
    }

    public synchronized long accepted() {
        return accepted;
    }

    private Cell cell(String key) {
        return cells.computeIfAbsent(key, k -> new Cell());
    }

    @Override
    public synchronized String toString() {
        return "FencedResource[accepted " + accepted + ", stale refused " + staleRefused + ", stale accepted "
                + staleAccepted + ", current refused " + currentRefused + ", lost updates " + lostUpdates() + "]";
    }
}
