package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Mutual exclusion: no two owners may claim one lock at the same instant, unless both hold its read side.
 * Where two claims overlap, the overlap is allowed only as far as a documented limit explains it, judged for
 * the hold that was granted
 * first (the one whose lock the other took; either one if their acquisitions raced):
 * <ol>
 * <li>a fixed lease ends by itself: the claim of a fixed-lease section already stops where its lease can
 * have run out (isLost() turns true by the local clock then);</li>
 * <li>a holder that was told (listener, isLost(), exception) or whose client was closed claims no more;</li>
 * <li>data loss (Redis restarted empty, an unplanned failover, forceUnlock of that lock) during the hold:
 * a fixed-lease section is never told, so its whole remaining lease; a watchdog hold until the loss is
 * reported, at most {@link Timing#TOLD_WITHIN_MILLIS} after the window;</li>
 * <li>cut off (the holder's JVM frozen; Redis frozen, standalone only) during the hold: a watchdog hold
 * until it is told, at most {@link Timing#TOLD_WITHIN_MILLIS} after the window. Not a fixed-lease
 * section: a pause does not shorten a lease that was set.</li>
 * </ol>
 * Everything else is a violation.
 */
final class ExclusionChecker {

    /** What the check found: violations, and how many overlaps each documented limit explained. */
    record Result(List<Violation> violations, long overlaps, Map<String, Long> allowedByCause) {
    }

    private static final long TOLD_WITHIN = Timing.nanos(Timing.TOLD_WITHIN_MILLIS);

    private ExclusionChecker() {
    }

    static Result check(Holds holds, Exposures exposures) {
        List<Violation> violations = new ArrayList<>();
        Map<String, Long> allowed = new TreeMap<>();
        long overlaps = 0;
        for (List<Hold> keyHolds : holds.byKey().values()) {
            List<Hold> claiming = new ArrayList<>(keyHolds.stream().filter(Hold::claims).toList());
            claiming.sort(java.util.Comparator.comparingLong(Hold::claimStart));
            List<Hold> active = new ArrayList<>();
            for (Hold hold : claiming) {
                active.removeIf(earlier -> earlier.claimEnd() <= hold.claimStart());
                for (Hold earlier : active) {
                    List<long[]> overlap = Intervals.intersect(earlier.claim, hold.claim);
                    if (overlap.isEmpty() || earlier.sameOwner(hold) || earlier.shared() && hold.shared()) {
                        continue;
                    }
                    overlaps++;
                    judge(earlier, hold, overlap, exposures, violations, allowed);
                }
                active.add(hold);
            }
        }
        return new Result(violations, overlaps, allowed);
    }

    private static void judge(Hold a, Hold b, List<long[]> overlap, Exposures exposures, List<Violation> violations,
            Map<String, Long> allowed) {
        List<Exposures.Window> windows = new ArrayList<>();
        if (a.firstInvoke < b.firstEnter) {
            windows.addAll(allowance(a, exposures));
        }
        if (b.firstInvoke < a.firstEnter) {
            windows.addAll(allowance(b, exposures));
        }
        List<long[]> explained = new ArrayList<>();
        windows.forEach(w -> explained.add(new long[] {w.from(), w.to()}));
        List<long[]> unexplained = Intervals.minus(overlap, explained);
        if (unexplained.isEmpty()) {
            String cause = windows.stream().filter(w -> w.from() <= overlap.get(0)[0] && w.to() > overlap.get(0)[0])
                    .map(Exposures.Window::cause).findFirst().orElse("?");
            allowed.merge(cause, 1L, Long::sum);
            return;
        }
        Hold first = a.firstEnter <= b.firstEnter ? a : b;
        Hold second = first == a ? b : a;
        long from = unexplained.get(0)[0];
        long to = unexplained.get(unexplained.size() - 1)[1];
        violations.add(new Violation("mutual exclusion", a.key(), from, to, List.of(first.id, second.id),
                String.format(java.util.Locale.ROOT, "two owners inside %s for %.1f ms that no documented limit "
                        + "explains (%s, granted first, was %s)", a.key(), Intervals.length(unexplained) / 1e6,
                        first.id, first.toldAt == Intervals.FOREVER ? "never told it lost the lock"
                                : "told " + first.toldHow + " only later")));
    }

    /** The stretches in which the README lets {@code victim} lose its lock unaware, with their causes. */
    private static List<Exposures.Window> allowance(Hold victim, Exposures exposures) {
        List<Exposures.Window> allowed = new ArrayList<>();
        for (Exposures.Window loss : exposures.dataLoss(victim.key())) {
            if (relevant(loss, victim)) {
                for (long[] part : Intervals.intersect(List.of(new long[] {loss.from(), Intervals.FOREVER}),
                        victim.fixedCover)) {
                    allowed.add(new Exposures.Window(loss.cause() + " (fixed lease, never told)", part[0], part[1]));
                }
                watchdogOnly(victim, loss, allowed);
            }
        }
        for (Exposures.Window cut : exposures.cutOff(victim.jvm())) {
            if (relevant(cut, victim)) {
                watchdogOnly(victim, cut, allowed);
            }
        }
        return allowed;
    }

    private static void watchdogOnly(Hold victim, Exposures.Window window, List<Exposures.Window> allowed) {
        List<long[]> span = List.of(new long[] {window.from(), window.to() + TOLD_WITHIN});
        for (long[] part : Intervals.minus(span, victim.fixedCover)) {
            allowed.add(new Exposures.Window(window.cause() + " (watchdog, told within bound)", part[0], part[1]));
        }
    }

    /** A window can cost a hold its lock only if it did not end before the hold began. */
    private static boolean relevant(Exposures.Window window, Hold hold) {
        return window.to() >= hold.firstInvoke && window.from() <= hold.claimEnd();
    }
}
