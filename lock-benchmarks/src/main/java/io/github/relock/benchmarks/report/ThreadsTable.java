package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.stream.Collectors;

/** The threads-per-client table: what one client of each library starts, beyond Lettuce's event loops. */
final class ThreadsTable {

    private ThreadsTable() {
    }

    static void render(List<ThreadsResult> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        out.append("Threads per client (one new client holds a lock with no lease through a renewal round, makes "
                + "asynchronous calls and has a waiter woken by a release; every thread that appears meanwhile, by "
                + "name, with client ids written ID and counters N):\n\n");
        out.append("| library | threads beyond Lettuce's | by name | Lettuce's (lettuce-*) | JVM common pool "
                + "(shared) | alive 2 s after close |\n");
        out.append("|---|---:|---|---:|---:|---:|\n");
        for (ThreadsResult r : rows) {
            if (!r.ran()) {
                out.append("| ").append(r.library()).append(" | - | ").append(r.note()).append(" | - | - | - |\n");
                continue;
            }
            out.append("| ").append(r.library()).append(" | ").append(r.ownCount()).append(" | ")
                    .append(byName(r)).append(" | ").append(r.lettuce()).append(" | ").append(r.commonPool()).append(" | ")
                    .append(r.leftAfterClose())
                    .append(" |\n");
        }
        out.append('\n');
    }

    static String byName(ThreadsResult r) {
        if (r.own().isEmpty()) {
            return "none";
        }
        return r.own().entrySet().stream().map(e -> "`" + e.getKey() + "`" + (e.getValue() == 1 ? "" : " ×" + e.getValue()))
                .collect(Collectors.joining(", "));
    }
}
