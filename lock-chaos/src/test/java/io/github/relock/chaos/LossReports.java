package io.github.relock.chaos;

import java.util.List;

/**
 * Figures for the report, not judged: losses that {@code unlock()} reported (LockLostException) for holds
 * that nothing had taken from their owner: no earlier tell, no documented fault during the hold, and a
 * lease that had not run out. The README allows such a report after a release whose reply was lost (its
 * retry finds a new holder); what a fix makes of it, the checkers do not depend on. And watchdog leases
 * that their own client showed as lapsed while the holder was inside: the watchdog had stopped.
 */
final class LossReports {

    /** The figures. */
    record Figures(long unexplainedLossReports, long lapsedWatchdogLeases) {
    }

    private LossReports() {
    }

    static Figures count(ChaosHistory history, Holds holds, Exposures exposures) {
        long unexplained = 0;
        for (List<Hold> keyHolds : holds.byKey().values()) {
            for (Hold hold : keyHolds) {
                boolean faulted = exposures.dataLoss(hold.key()).stream().anyMatch(w -> during(w, hold))
                        || exposures.cutOff(hold.jvm()).stream().anyMatch(w -> during(w, hold));
                if (reportedByUnlockOnly(hold) && !faulted && hold.claims() && hold.claimEnd() >= hold.lastExit) {
                    unexplained++;
                }
            }
        }
        return new Figures(unexplained, history.all(Ev.Lapsed.class).size());
    }

    private static boolean reportedByUnlockOnly(Hold hold) {
        return hold.toldHow.equals("exception") && hold.toldAt >= hold.lastExit
                && hold.sections.stream().anyMatch(s -> s.end().equals("lost"));
    }

    private static boolean during(Exposures.Window window, Hold hold) {
        return window.to() >= hold.firstInvoke && window.from() <= hold.lastExit;
    }
}
