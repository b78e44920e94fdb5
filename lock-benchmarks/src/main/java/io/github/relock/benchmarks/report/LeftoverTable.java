package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** What each library leaves in Redis per lock name after release; no target, a figure. */
final class LeftoverTable {

    private LeftoverTable() {
    }

    static void render(List<LeftoverResult> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        out.append("Left in Redis after release: on an emptied Redis, one client locks ").append(rows.get(0).names())
                .append(" distinct names once each on one thread and releases them. Keys: those a SCAN of the whole "
                        + "database finds afterwards and did not before. Bytes: MEMORY USAGE of each of them (up to 500 of each shape, scaled to all), summed. "
                        + "used_memory: INFO memory after less before, which also counts what Redis keeps beside a key "
                        + "(its expiry), and moves with anything else, such as clients' connections and buffers, so it is a "
                        + "cross-check, not the figure. All per name:\n\n");
        out.append("| library | keys left/name | bytes left/name (MEMORY USAGE) | used_memory Δ/name | keys left (NAME = the lock name) |\n");
        out.append("|---|---:|---:|---:|---|\n");
        for (LeftoverResult r : rows) {
            if (!r.note().isEmpty()) {
                out.append("| ").append(r.library()).append(" | - | - | - | ").append(r.note()).append(" |\n");
                continue;
            }
            out.append(String.format(Locale.ROOT, "| %s | %.2f | %.0f | %+.0f | %s |%n", r.library(), r.keysPerName(),
                    r.bytesPerName(), r.usedMemoryPerName(), r.leftKeys().isEmpty() ? "none"
                            : String.join("; ", r.leftKeys())));
        }
        out.append('\n');
    }
}
