package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every hold of a run, built from the section events, with the tells and closes that cut their claims: a
 * tell that names its hold (isLost, an exception) applies to it; a listener's tell goes to the hold of that
 * owner and lock with that fencing token, or, with no token known, the one it fell into in time.
 */
final class Holds {

    private final Map<String, Hold> byId = new LinkedHashMap<>();
    private final Map<String, List<Hold>> byKey = new HashMap<>();

    Holds(ChaosHistory history, Exposures exposures) {
        for (Ev.Section section : history.all(Ev.Section.class)) {
            byId.computeIfAbsent(section.holdId(), Hold::new).add(section);
        }
        Map<String, List<Hold>> byOwnerAndKey = new HashMap<>();
        for (Hold hold : byId.values()) {
            byKey.computeIfAbsent(hold.key(), k -> new ArrayList<>()).add(hold);
            byOwnerAndKey.computeIfAbsent(hold.owner() + " " + hold.key(), k -> new ArrayList<>()).add(hold);
        }
        for (Ev.Told told : history.all(Ev.Told.class)) {
            Hold hold = told.holdId().equals("-")
                    ? listenersHold(byOwnerAndKey.getOrDefault(told.owner() + " " + told.key(), List.of()), told)
                    : byId.get(told.holdId());
            if (hold != null) {
                hold.told(told.at(), told.how());
            }
        }
        Map<String, Long> closes = new HashMap<>();
        history.all(Ev.Closed.class).forEach(c -> closes.merge(c.client(), c.invoke(), Math::min));
        for (Hold hold : byId.values()) {
            Long closed = closes.get(hold.client());
            if (closed != null && closed >= hold.firstInvoke) {
                hold.closedAt = closed;
            }
            hold.finish(exposures);
        }
        byKey.values().forEach(holds -> holds.sort(Comparator.comparingLong(h -> h.firstEnter)));
    }

    private static Hold listenersHold(List<Hold> candidates, Ev.Told told) {
        for (Hold hold : candidates) {
            if (told.token() > 0 && hold.token() > 0) {
                if (told.token() == hold.token()) {
                    return hold;
                }
            }
            else if (told.at() >= hold.firstInvoke && told.at() <= hold.lastExit) {
                return hold;
            }
        }
        return null;
    }

    Hold get(String id) {
        return byId.get(id);
    }

    Map<String, List<Hold>> byKey() {
        return byKey;
    }

    int size() {
        return byId.size();
    }
}
