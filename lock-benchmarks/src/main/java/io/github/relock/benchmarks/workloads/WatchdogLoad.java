package io.github.relock.benchmarks.workloads;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;
import io.github.relock.benchmarks.redis.CommandStats;
import io.github.relock.benchmarks.redis.MonitorTap;
import io.github.relock.benchmarks.report.WatchdogResult;

/**
 * Many locks held with no lease, nothing else going on: every command Redis sees in the window is
 * renewal traffic. All libraries get the same watchdog timeout. At the end every lock is released;
 * one that fails to release was lost, meaning renewal fell behind.
 */
public final class WatchdogLoad {

    public WatchdogResult run(LockLibrary library, RunContext context) {
        int locks = context.options().watchdogLocks();
        if (!library.hasWatchdog()) {
            return new WatchdogResult(library.id(), locks, 0, Double.NaN, null, Map.of(), 0,
                    "skipped: " + library.noWatchdogReason());
        }
        context.settle();
        Duration timeout = context.options().watchdogTimeout();
        String names = context.freshNames("wd");
        try (LockClient client = library.connect(context.target(), timeout)) {
            List<BenchLock> held = new ArrayList<>(locks);
            for (int i = 0; i < locks; i++) {
                BenchLock lock = client.lock(names + "-" + i);
                lock.lock();
                held.add(lock);
            }
            // let one full renewal period pass, so every lock's renewal is in its steady rhythm
            sleep(timeout.toMillis() / 3 + 200);

            CommandStats before = context.admin().commandStats();
            long start = System.nanoTime();
            Map<String, Long> mix;
            long clientCommands;
            // renewal traffic is tiny, so MONITOR can watch the measured window itself
            try (MonitorTap tap = MonitorTap.attach(context.target())) {
                sleep(context.options().watchdogDuration().toMillis());
                tap.close();
                mix = tap.clientCommands();
                clientCommands = tap.clientTotal();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            CommandStats calls = context.admin().commandStats().minus(before);

            long lost = 0;
            for (BenchLock lock : held) {
                try {
                    lock.unlock();
                }
                catch (RuntimeException ex) {
                    lost++;
                }
            }
            Map<String, Double> perSecond = new TreeMap<>();
            mix.forEach((name, n) -> perSecond.put(name, n / seconds));
            return new WatchdogResult(library.id(), locks, seconds, calls.total() / seconds, clientCommands / seconds,
                    perSecond, lost, "");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
