package io.github.relock.core;

import java.util.concurrent.TimeUnit;

import io.github.relock.test.RedisServer;

/** Waits for a primary's replica to be online, so that a WAIT can be acknowledged at all. */
final class Replication {

    private Replication() {
    }

    static void awaitReplicaOnline(RedisServer primary) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            String info = primary.command("INFO", "replication");
            if (info != null && info.contains("slave0:") && info.contains("state=online")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("replica never came online");
    }
}
