package io.github.relock.core.reliability;

import java.util.concurrent.ThreadLocalRandom;

import io.github.relock.test.RedisServerExtension;

/** SIGKILLs redis-server at a random point of a renewal interval and restarts it without its data. */
final class EmptyRestart {

    private EmptyRestart() {
    }

    /**
     * Waits 200 ms plus up to one renewal interval, kills the server, waits up to 300 ms, restarts it empty
     * and returns the {@link System#nanoTime()} at which it was back.
     */
    static long killAndRestart(RedisServerExtension redis, long renewalMillis) throws InterruptedException {
        Thread.sleep(200 + ThreadLocalRandom.current().nextInt(renewalMillis == 0 ? 1 : (int) renewalMillis));
        redis.server().kill();
        Thread.sleep(ThreadLocalRandom.current().nextInt(300));
        redis.server().restart();
        return System.nanoTime();
    }
}
