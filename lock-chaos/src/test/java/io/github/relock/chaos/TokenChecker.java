package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Fencing tokens strictly increase per lock in acquisition order: a hold granted surely after another one
 * (its acquisition was called after the other's had returned) must carry a greater token. The README names
 * no exception for the faults of this schedule (restarts without data and failovers included), so there is
 * none. Holds whose acquisitions raced are not compared: their order is not known.
 */
final class TokenChecker {

    private TokenChecker() {
    }

    static List<Violation> check(Holds holds) {
        List<Violation> violations = new ArrayList<>();
        for (List<Hold> keyHolds : holds.byKey().values()) {
            List<Hold> known = keyHolds.stream().filter(h -> h.token() > 0).toList(); // sorted by firstEnter
            Hold[] highest = new Hold[known.size()];
            for (int i = 0; i < known.size(); i++) {
                Hold hold = known.get(i);
                highest[i] = i > 0 && highest[i - 1].token() >= hold.token() ? highest[i - 1] : hold;
            }
            for (Hold hold : known) {
                int before = lastEnteredBefore(known, hold.firstInvoke);
                if (before >= 0 && highest[before].token() >= hold.token()) {
                    Hold earlier = highest[before];
                    violations.add(new Violation("fencing token order", hold.key(), earlier.firstEnter, hold.firstEnter,
                            List.of(earlier.id, hold.id), "token " + hold.token() + " granted after token "
                            + earlier.token() + " on " + hold.key()));
                }
            }
        }
        return violations;
    }

    /** Index of the last hold (sorted by first enter) that entered before {@code instant}, or -1. */
    private static int lastEnteredBefore(List<Hold> sorted, long instant) {
        int low = 0;
        int high = sorted.size() - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (sorted.get(mid).firstEnter < instant) {
                found = mid;
                low = mid + 1;
            }
            else {
                high = mid - 1;
            }
        }
        return found;
    }
}
