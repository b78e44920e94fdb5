package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.Contenders;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Lines;
import io.github.relock.test.RedisServerExtension;

/**
 * A waiting client already in line lengthens the line to the holder's lease when it looks again. The line's TTL
 * is set when a client joins (the holder's lease left, plus a turn); a holder whose watchdog keeps renewing
 * would outlive it, and a client that starts waiting later would join a new line ahead of the one that waited
 * longer, breaking the order turns promise.
 */
@Timeout(60)
@Tag("jdk-independent")
class LineLastsWhileHolderRenewsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = new Contenders(redis);

    @Test
    void aWaitingClientStaysInLineWhileTheHolderRenews() throws Exception {
        RedisLockClient h = RedisLockClient.builder(redis.newConnectionFactory())
                .watchdogTimeout(Duration.ofMillis(600)).build();
        RedisLockClient b = RedisLockClient.builder(redis.newConnectionFactory()).build();
        contenders.add(h);
        contenders.add(b);
        String name = "bk3:outlives:" + System.nanoTime();
        ReentrantDistributedLock held = h.getLock(name);
        held.lock();
        Future<Boolean> waiting = contenders.pool().submit(() -> b.getLock(name).tryLock(20, TimeUnit.SECONDS));
        Lines.awaitInLine(redis, name, b);
        String key = Lines.turnKey(h, name);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        int absent = 0;
        int samples = 0;
        while (System.nanoTime() < end) {
            String line = redis.commands().get(key);
            samples++;
            if (line == null || !line.contains(b.getClientId() + ":")) {
                absent++;
            }
            Thread.sleep(10);
        }
        held.unlock();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(absent).as("samples of %s in which the waiting client was not in line", samples).isZero();
    }
}
