package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.Contenders;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.ChannelMonitor;
import io.github.relock.core.testing.Lines;
import io.github.relock.test.RedisServerExtension;

/**
 * A client second in line hears "-A:B:" (A took its turn), and A's hold then ends without a release (a fixed
 * lease left to run out, a documented pattern), so nobody announces anything: B's waiter wakes when A's 300 ms
 * lease ends, not at the end of the sleep it chose from the previous holder's lease (30 s watchdog lease here;
 * minutes with a long explicit lease).
 */
@Timeout(60)
@Tag("jdk-independent")
class InLineWakeUpTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = new Contenders(redis);

    @Test
    void secondInLineWakesWhenTheTurnTakersLeaseRunsOut() throws Exception {
        RedisLockClient h = contenders.newClient();
        RedisLockClient a = contenders.newClient();
        RedisLockClient b = contenders.newClient();
        String name = "bk3:stale:" + System.nanoTime();
        ReentrantDistributedLock held = h.getLock(name);
        held.lock(); // watchdog lease: 30 s
        // never unlocked: A's 300 ms lease runs out
        Future<Boolean> first = contenders.pool()
                .submit(() -> a.getLock(name).tryLock(10_000, 300, TimeUnit.MILLISECONDS));
        Lines.awaitInLine(redis, name, a);
        Future<Long> second = contenders.pool().submit(() -> {
            ReentrantDistributedLock lock = b.getLock(name);
            boolean got = lock.tryLock(8, TimeUnit.SECONDS);
            long at = System.nanoTime();
            if (got) {
                lock.unlock();
            }
            return got ? at : -1L;
        });
        Lines.awaitInLine(redis, name, b);
        Thread.sleep(100); // B's attempt after subscribing is done: it sleeps on H's 30 s lease
        ChannelMonitor monitor = new ChannelMonitor(redis.uri(), h.redisKeys(name).releaseChannel());
        long released = System.nanoTime();
        held.unlock();
        assertThat(first.get(5, TimeUnit.SECONDS)).as("A took its turn").isTrue();
        long at = second.get(20, TimeUnit.SECONDS);
        assertThat(at).as("B got the lock within 8 s").isPositive();
        long millis = TimeUnit.NANOSECONDS.toMillis(at - released);
        System.out.println("heard: " + monitor);
        monitor.close();
        System.out.println("B got the lock " + millis + " ms after H's release (A's lease: 300 ms)");
        assertThat(millis).as("ms from H's release to B's hold; A's lease ended after 300 ms").isLessThan(2_000);
    }
}
