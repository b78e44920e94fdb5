package io.github.relock.benchmarks.workloads;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * and described by its shape, contents and remaining time to live ({@link KeyShapes}). A lock and release of one more name come first,
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
            List<KeyShapes.Shape> shapes = KeyShapes.of(redis, left, Pattern.compile(Pattern.quote(names + "-") + "\\d+"));
            return new LeftoverResult(library.id(), NAMES, left.size() / (double) NAMES,
                    KeyShapes.bytes(shapes) / NAMES, (memoryAfter - memoryBefore) / (double) NAMES,
                    KeyShapes.describe(shapes, NAMES, "name"), "");
        }
    }

    private static Set<String> keys(RedisCommands<String, String> redis) {
        Set<String> keys = new HashSet<>();
        ScanIterator.scan(redis, ScanArgs.Builder.limit(1000)).forEachRemaining(keys::add);
        return keys;
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
