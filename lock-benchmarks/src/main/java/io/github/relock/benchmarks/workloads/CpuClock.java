package io.github.relock.benchmarks.workloads;

import io.github.relock.benchmarks.redis.RedisAdmin;
import io.github.relock.benchmarks.support.CpuTime;

/**
 * CPU time and allocation of this JVM, and CPU time of redis-server, over a measured window. On a shared
 * machine throughput moves with the neighbours; CPU per operation moves less, and bytes allocated per
 * operation hardly at all, so they show what a library itself costs when timings cannot.
 */
final class CpuClock {

    record Reading(CpuTime.Snapshot client, long redisNanos) {

        /** What happened between {@code before} and this reading. */
        Delta since(Reading before) {
            return new Delta(client.cpuSince(before.client), redisNanos - before.redisNanos,
                    client.bytesSince(before.client));
        }
    }

    record Delta(long clientNanos, long redisNanos, long clientBytes) {
    }

    private CpuClock() {
    }

    static Reading read(RedisAdmin admin) {
        return new Reading(CpuTime.snapshot(), redisCpuNanos(admin.info("cpu")));
    }

    // used_cpu_sys:1.234567 and used_cpu_user:2.345678, in seconds
    private static long redisCpuNanos(String info) {
        double seconds = 0;
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return Math.round(seconds * 1e9);
    }
}
