package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** The S2 table (many waiters) and its targets, for every library that ran it. */
final class WaitersTable {

    /** The target bound on the 99th percentile wake-up delay on loopback. */
    static final long P99_TARGET_MICROS = 5_000;

    private WaitersTable() {
    }

    static void render(List<WaitersResult> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        out.append("S2, many waiters (asynchronous calls; each waiter takes its key once and holds it as the S2 line below "
                + "says; wake-up: "
                + "from a release completing to the next holder's acquisition completing; pub/sub: most connections "
                + "in pub/sub mode at once, all clients together; subscriptions: channels / their NUMSUB added up, "
                + "before the waiters and after them):\n\n");
        out.append("| library | waiters | keys | clients | s | wake-ups | p50 µs | p99 µs | max µs | overslept | timed out "
                + "| failed | unfinished | overlaps | pub/sub conns | subscriptions before | after |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (WaitersResult r : rows) {
            if (!r.ran()) {
                out.append("| ").append(r.library()).append(" | ").append(r.note())
                        .append(" | | | | | | | | | | | | | | | |\n");
                continue;
            }
            out.append(String.format(Locale.ROOT,
                    "| %s | %,d | %,d | %d | %.1f | %,d | %,d | %,d | %,d | %d | %d | %d | %d | %d | %d | %s | %s |%n",
                    r.library(), r.waiters(), r.keys(), r.clients(), r.seconds(), r.wakeUps(), r.p50WakeUpMicros(),
                    r.p99WakeUpMicros(), r.maxWakeUpMicros(), r.overslept(), r.timedOut(), r.failed(), r.unfinished(),
                    r.overlaps(), r.peakPubSub(), r.before(), r.after()));
        }
        out.append('\n');
        for (WaitersResult r : rows) {
            if (!r.firstFailure().isEmpty()) {
                out.append("- S2 ").append(r.library()).append(": first of ").append(r.failed())
                        .append(" failed calls: ").append(r.firstFailure()).append('\n');
            }
        }
        for (WaitersResult r : rows) {
            if (!r.ran()) {
                continue;
            }
            String who = "S2 " + r.library() + ": ";
            verdict(out, who + "p99 wake-up after a release <= 5 ms",
                    String.format(Locale.ROOT, "%.2f ms", r.p99WakeUpMicros() / 1000.0),
                    r.wakeUps() > 0 && r.p99WakeUpMicros() <= P99_TARGET_MICROS);
            verdict(out, who + "0 waiters overslept their wait time", r.overslept() + " overslept",
                    r.overslept() == 0 && r.unfinished() == 0);
            verdict(out, who + "one pub/sub connection per client",
                    r.peakPubSub() + " at most for " + r.clients() + " clients", r.onePubSubPerClient());
            verdict(out, who + "PUBSUB NUMSUB back to baseline after",
                    r.before() + " before, " + r.after() + " after", r.backToBaseline());
        }
        out.append('\n');
    }

    private static void verdict(StringBuilder out, String target, String figure, boolean met) {
        out.append("- ").append(target).append(": ").append(figure).append(": ").append(met ? "met" : "**not met**")
                .append('\n');
    }
}
