package io.github.relock.benchmarks.workloads;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.relock.benchmarks.Options;
import io.github.relock.benchmarks.libraries.RedisTarget;
import io.github.relock.benchmarks.redis.RedisAdmin;

/** What every workload run shares: settings, the server and the harness's own connection. */
public final class RunContext {

    private final Options options;
    private final RedisAdmin admin;
    private final AtomicInteger runs = new AtomicInteger();

    public RunContext(Options options, RedisAdmin admin) {
        this.options = options;
        this.admin = admin;
    }

    public Options options() {
        return options;
    }

    public RedisAdmin admin() {
        return admin;
    }

    public RedisTarget target() {
        return admin.target();
    }

    /** A prefix for lock names that no earlier run used. */
    String freshNames(String workload) {
        return workload.toLowerCase(java.util.Locale.ROOT) + "-" + runs.incrementAndGet();
    }

    /** Puts every run on the same footing: no keys left over, garbage collected, a moment of quiet. */
    void settle() {
        admin.flushAll();
        System.gc();
        try {
            Thread.sleep(100);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
