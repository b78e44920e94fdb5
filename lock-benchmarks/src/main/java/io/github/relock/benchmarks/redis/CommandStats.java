package io.github.relock.benchmarks.redis;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Calls per command from {@code INFO commandstats}. Redis counts every command it executes, including
 * the ones a Lua script runs with {@code redis.call}, so these are server-side calls, not round trips.
 */
public record CommandStats(Map<String, Long> calls) {

    /** The harness's own commands, never counted against a library. */
    private static final Set<String> HARNESS = Set.of("info", "config", "monitor", "ping");

    public static CommandStats parse(String info) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            // cmdstat_evalsha:calls=12,usec=34,usec_per_call=2.83,rejected_calls=0,failed_calls=0
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = line.substring("cmdstat_".length(), colon);
            int from = line.indexOf("calls=", colon) + "calls=".length();
            int to = line.indexOf(',', from);
            calls.put(name, Long.parseLong(line.substring(from, to < 0 ? line.length() : to)));
        }
        return new CommandStats(Map.copyOf(calls));
    }

    /** What happened between {@code before} and this snapshot, without the harness's own commands. */
    public CommandStats minus(CommandStats before) {
        Map<String, Long> delta = new TreeMap<>();
        calls.forEach((name, n) -> {
            long d = n - before.calls.getOrDefault(name, 0L);
            if (d > 0 && !HARNESS.contains(name)) {
                delta.put(name, d);
            }
        });
        return new CommandStats(delta);
    }

    public long total() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }
}
