package io.github.relock.benchmarks.workloads;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;
import io.github.relock.benchmarks.report.LeftoverResult;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What a library leaves in Redis per lock name once the lock is released: on an
 * emptied Redis, one client locks {@value #NAMES} distinct names once each on one thread and releases
 * them; every key there afterwards that was not there before is counted, sized with {@code MEMORY USAGE},
 * and described by its shape and remaining time to live. A lock and release of one more name come first,
 * so keys a client keeps for itself, whatever the names, are in the baseline and not counted.
 */
public final class Leftovers {

    /** Enough names that used_memory's own noise (a few KB) is a few bytes per name. */
    public static final int NAMES = 2000;

    public LeftoverResult run(LockLibrary library, RunContext context) {
        context.settle();
        String names = context.freshNames("left");
        RedisCommands<String, String> redis = context.admin().commands();
        try (LockClient client = library.connect(context.target(), null)) {
            BenchLock first = client.lock(names + "-first");
            first.lock();
            first.unlock();
            Set<String> before = keys(redis);
            long memoryBefore = usedMemory(context);
            for (int i = 0; i < NAMES; i++) {
                BenchLock lock = client.lock(names + "-" + i);
                lock.lock();
                lock.unlock();
            }
            long memoryAfter = usedMemory(context);
            Set<String> left = keys(redis);
            left.removeAll(before);
            long bytes = 0;
            // shape (the name written NAME) -> {keys, longest time to live in ms, or -1 for none}
            Map<String, long[]> shapes = new TreeMap<>();
            Pattern name = Pattern.compile(Pattern.quote(names + "-") + "\\d+");
            for (String key : left) {
                Long usage = redis.memoryUsage(key);
                bytes += usage == null ? 0 : usage; // null: expired between SCAN and now
                long[] shape = shapes.computeIfAbsent(name.matcher(key).replaceAll("NAME"), k -> new long[] {0, -1});
                shape[0]++;
                shape[1] = Math.max(shape[1], redis.pttl(key));
            }
            return new LeftoverResult(library.id(), NAMES, left.size() / (double) NAMES, bytes / (double) NAMES,
                    (memoryAfter - memoryBefore) / (double) NAMES, describe(shapes), "");
        }
    }

    private static Set<String> keys(RedisCommands<String, String> redis) {
        Set<String> keys = new HashSet<>();
        ScanIterator.scan(redis, ScanArgs.Builder.limit(1000)).forEachRemaining(keys::add);
        return keys;
    }

    private static List<String> describe(Map<String, long[]> shapes) {
        List<String> out = new ArrayList<>();
        shapes.forEach((shape, s) -> out.add(shape + " ×" + s[0] + (s[1] < 0 ? ", no expiry"
                : String.format(Locale.ROOT, ", expires in %s", duration(s[1])))));
        return out;
    }

    private static String duration(long millis) {
        if (millis >= 86_400_000) {
            return String.format(Locale.ROOT, "%.1f d", millis / 86_400_000.0);
        }
        if (millis >= 60_000) {
            return String.format(Locale.ROOT, "%.1f min", millis / 60_000.0);
        }
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }

    private static long usedMemory(RunContext context) {
        for (String line : context.admin().info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).strip());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory");
    }
}
