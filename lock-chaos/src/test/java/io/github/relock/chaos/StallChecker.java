package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * No stall: every call returns within its wait plus {@link Timing#OVERRUN_MILLIS} (three commands timing
 * out, and slack), not counting time its own JVM was frozen, nor the body of an annotated method; a call
 * that waits as long as it takes within {@link Timing#STALL_MILLIS}; no driver is stuck when the run ends.
 * And a nested annotated call on a key its own thread holds must not wait out its wait time for nobody:
 * if no other owner claimed the lock meanwhile, it waited on itself, unless replicas could not acknowledge
 * (with {@code minReplicas} a lease-lengthening re-entry then fails closed).
 */
final class StallChecker {

    private static final long SELF_WAIT_SLACK = Timing.nanos(50);

    private StallChecker() {
    }

    static List<Violation> check(ChaosHistory history, Holds holds, Exposures exposures) {
        Map<String, Ev.Section> bodies = new HashMap<>();
        for (Ev.Section section : history.all(Ev.Section.class)) {
            if (!section.kind().equals("prog")) {
                bodies.putIfAbsent(section.opId(), section);
            }
        }
        List<Violation> violations = new ArrayList<>();
        for (Ev.Op op : history.all(Ev.Op.class)) {
            long bound = boundMillis(op);
            long took = op.ret() - op.invoke() - exposures.pausedNanos(op.jvm(), op.invoke(), op.ret());
            Ev.Section body = bodies.get(op.opId());
            if (body != null && !op.kind().equals("ANN_ASYNC")) {
                took -= body.exit() - body.enter();
            }
            if (bound >= 0 && took > Timing.nanos(bound)) {
                violations.add(new Violation("stall", op.key(), op.invoke(), op.ret(), List.of(op.opId()),
                        op.kind() + " (wait " + op.waitMillis() + " ms) returned " + op.result() + " after "
                                + took / 1_000_000 + " ms, bound " + bound + " ms"));
            }
            if (waitedOnItself(op, holds) && !duringUnacknowledged(op, exposures)) {
                violations.add(new Violation("waited on itself", op.key(), op.invoke(), op.ret(),
                        List.of(op.insideHold(), op.opId()), op.kind() + " nested in hold " + op.insideHold()
                                + " on the same key waited its whole " + op.waitMillis()
                                + " ms and failed, though no other owner claimed the lock meanwhile"));
            }
        }
        for (Ev.Stuck stuck : history.all(Ev.Stuck.class)) {
            violations.add(new Violation("stall: driver stuck", "jvm" + stuck.jvm(), stuck.since(), stuck.since(),
                    List.of(stuck.thread()), stuck.what()));
        }
        return violations;
    }

    private static long boundMillis(Ev.Op op) {
        return switch (op.kind()) {
            case "LOCK", "LOCK_LEASE" -> Timing.STALL_MILLIS;
            case "TRY_LOCK", "TRY_LOCK_WAIT", "TRY_LOCK_WAIT_LEASE", "ANN_ASYNC" -> op.waitMillis()
                    + Timing.OVERRUN_MILLIS;
            case "UNLOCK", "CANCEL" -> Timing.OVERRUN_MILLIS;
            case "ANN_SYNC", "ANN_LEASED" -> op.waitMillis() + 2 * Timing.OVERRUN_MILLIS; // acquire and release
            default -> -1;
        };
    }

    private static boolean duringUnacknowledged(Ev.Op op, Exposures exposures) {
        return exposures.unacknowledged().stream()
                .anyMatch(window -> window.from() <= op.ret() && window.to() + Timing.nanos(Timing.TOLD_WITHIN_MILLIS) >= op.invoke());
    }

    private static boolean waitedOnItself(Ev.Op op, Holds holds) {
        if (op.insideHold().equals("-") || !op.result().equals("not-acquired")
                || op.ret() - op.invoke() < Timing.nanos(op.waitMillis()) - SELF_WAIT_SLACK) {
            return false;
        }
        Hold own = holds.get(op.insideHold());
        List<long[]> waited = List.of(new long[] {op.invoke(), op.ret()});
        for (Hold other : holds.byKey().getOrDefault(op.key(), List.of())) {
            if (other != own && (own == null || !other.sameOwner(own))
                    && !Intervals.intersect(other.claim, waited).isEmpty()) {
                return false;
            }
        }
        return true;
    }
}
