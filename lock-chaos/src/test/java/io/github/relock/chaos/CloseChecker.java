package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Nothing outlives {@code close()}: right after it returns no thread named after the client is alive in
 * its JVM; two leases later no hash field of its owners is left in Redis (nobody renews what it held) and
 * no channel named after it has a subscriber; once every client is closed, no channel has one at all. A
 * probe that could not reach Redis (paused, failing over) for 20 s is inconclusive, not a violation.
 */
final class CloseChecker {

    private CloseChecker() {
    }

    static List<Violation> check(ChaosHistory history) {
        List<Violation> violations = new ArrayList<>();
        for (Ev.Closed closed : history.all(Ev.Closed.class)) {
            if (!closed.threads().equals("-")) {
                violations.add(new Violation("close: thread alive after close()", closed.client(), closed.invoke(),
                        closed.ret(), List.of(closed.client()), "jvm" + closed.jvm() + ": " + closed.threads()));
            }
        }
        for (Ev.Probe probe : history.all(Ev.Probe.class)) {
            if (probe.leftovers().equals("-") || probe.leftovers().equals("inconclusive")) {
                continue;
            }
            String rule = switch (probe.client()) {
                case "start" -> "close: channels subscribed before any client started";
                case "end" -> "close: channels subscribed after every client closed";
                default -> "close: left in Redis two leases after close()";
            };
            violations.add(new Violation(rule, probe.client(), probe.closedAt(), probe.at(), List.of(probe.client()),
                    probe.leftovers()));
        }
        return violations;
    }
}
