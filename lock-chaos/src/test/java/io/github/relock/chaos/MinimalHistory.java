package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The few events around one violation, instead of the whole history: the holds or calls involved (their
 * sections, acquisitions and tells), forceUnlocks of that lock, and the faults that touched the JVMs
 * involved, from a watchdog lease before the violation to a second after it.
 */
final class MinimalHistory {

    private static final int MAX_LINES = 40;

    private MinimalHistory() {
    }

    static String render(Violation violation, ChaosHistory history, Holds holds, Exposures exposures) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "VIOLATION [%s] %s %s..%s: %s", violation.rule(), violation.key(),
                history.at(violation.from()), history.at(violation.to()), violation.detail()));
        Set<Integer> jvms = new HashSet<>();
        long from = violation.from() - Timing.nanos(Timing.WATCHDOG_MILLIS + 2_000);
        long to = violation.to() + Timing.nanos(1_000);
        for (String id : violation.involved()) {
            Hold hold = holds.get(id);
            if (hold != null) {
                jvms.add(hold.jvm());
                from = Math.min(from, hold.firstInvoke - Timing.nanos(1_000));
                hold(hold, history, lines);
                continue;
            }
            for (Ev.Op op : history.all(Ev.Op.class)) {
                if (op.opId().equals(id)) {
                    jvms.add(op.jvm());
                    lines.add("  call " + op(op, history));
                }
            }
            for (Ev.Closed closed : history.all(Ev.Closed.class)) {
                if (closed.client().equals(id)) {
                    jvms.add(closed.jvm());
                    lines.add(String.format(Locale.ROOT, "  close() of client %s in jvm%d %s..%s, threads after it: %s",
                            id, closed.jvm(), history.at(closed.invoke()), history.at(closed.ret()), closed.threads()));
                }
            }
        }
        for (Ev.Force force : history.all(Ev.Force.class)) {
            if (force.key().equals(violation.key()) && force.ret() >= from && force.invoke() <= to) {
                lines.add(String.format(Locale.ROOT, "  forceUnlock by jvm%d %s..%s: %s", force.jvm(),
                        history.at(force.invoke()), history.at(force.ret()), force.result()));
            }
        }
        List<Ev.Fault> faults = exposures.around(from, to, jvms);
        lines.add(faults.isEmpty() ? "  faults around it: none" : "  faults around it:");
        for (Ev.Fault fault : faults) {
            lines.add(String.format(Locale.ROOT, "    %s..%s %s on %s %s", history.at(fault.start()),
                    history.at(fault.end()), fault.kind(), fault.target(), fault.detail().equals("-") ? ""
                            : fault.detail()));
        }
        if (lines.size() > MAX_LINES) {
            int cut = lines.size() - MAX_LINES;
            lines = new ArrayList<>(lines.subList(0, MAX_LINES));
            lines.add("  ... " + cut + " more lines");
        }
        return String.join("\n", lines);
    }

    private static void hold(Hold hold, ChaosHistory history, List<String> lines) {
        Ev.Section first = hold.first();
        lines.add(String.format(Locale.ROOT, "  hold %s: jvm%d %s, owner %s, token %d; claims %s; told: %s",
                hold.id, hold.jvm(), first.kind(), hold.owner(), hold.token(), claim(hold, history),
                hold.toldAt == Intervals.FOREVER ? "never" : hold.toldHow + " " + history.at(hold.toldAt)));
        hold.sections.stream().sorted(java.util.Comparator.comparingLong(Ev.Section::enter)).limit(4)
                .forEach(s -> lines.add(String.format(Locale.ROOT,
                        "    section depth %d %s, %s: called %s, inside %s, released %s (%s)", s.depth(), s.kind(),
                        s.leaseMillis() == 0 ? "watchdog" : "lease " + s.leaseMillis() + " ms", history.at(s.invoke()),
                        history.at(s.enter()), history.at(s.exit()), s.end())));
        for (Ev.Op op : history.all(Ev.Op.class)) {
            if (hold.sections.stream().anyMatch(s -> op.opId().equals(s.opId())
                    || op.opId().equals(s.opId() + "-cancel"))) {
                lines.add("    call " + op(op, history));
            }
        }
        for (Ev.Lapsed lapsed : history.all(Ev.Lapsed.class)) {
            if (lapsed.holdId().equals(hold.id)) {
                lines.add(String.format(Locale.ROOT, "    at %s its own client showed its watchdog lease ended %d ms "
                        + "before: nothing renewed it", history.at(lapsed.at()), lapsed.millisAgo()));
            }
        }
        for (Ev.Told told : history.all(Ev.Told.class)) {
            if (told.owner().equals(hold.owner()) && told.key().equals(hold.key()) && told.at() >= hold.firstInvoke
                    && told.at() <= hold.lastExit + Timing.nanos(Timing.TOLD_WITHIN_MILLIS)) {
                lines.add(String.format(Locale.ROOT, "    told (%s) %s, token %d", told.how(), history.at(told.at()),
                        told.token()));
            }
        }
    }

    private static String claim(Hold hold, ChaosHistory history) {
        if (hold.claim.isEmpty()) {
            return "nothing";
        }
        List<String> parts = new ArrayList<>();
        hold.claim.forEach(c -> parts.add(history.at(c[0]) + ".." + history.at(c[1])));
        return String.join(", ", parts);
    }

    private static String op(Ev.Op op, ChaosHistory history) {
        return String.format(Locale.ROOT, "%s %s (jvm%d, wait %d ms) %s..%s -> %s", op.kind(), op.opId(), op.jvm(),
                op.waitMillis(), history.at(op.invoke()), history.at(op.ret()), op.result());
    }
}
