package io.github.relock.benchmarks.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

import io.github.relock.benchmarks.Options;
import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.RedisTarget;
import io.github.relock.benchmarks.libraries.RedissonLibrary;
import io.github.relock.benchmarks.libraries.RelockLibrary;
import io.github.relock.benchmarks.libraries.SpringIntegrationLibrary;
import io.github.relock.benchmarks.redis.RedisAdmin;
import io.github.relock.benchmarks.report.Report;
import io.github.relock.benchmarks.report.WaitersResult;
import io.github.relock.test.RedisServer;

/**
 * S2 small (200 waiters on 20 keys over 2 clients) on a real redis-server, for relock and Redisson: every waiter
 * gets its key once, the figures hang together and the report shows the targets. Not a measurement.
 */
class ManyWaitersTest {

    @Test
    @Timeout(180)
    void everyWaiterGetsItsKeyOnceAndTheFiguresAddUp() {
        Options options = Options.parse("--s2-waiters=200", "--s2-keys=20", "--s2-clients=2");
        ManyWaiters s2 = new ManyWaiters(options.s2Waiters(), options.s2Keys(), options.s2Clients(), options.s2Hold());
        Report report = new Report();
        try (RedisServer server = RedisServer.start();
                RedisAdmin admin = new RedisAdmin(new RedisTarget(server.host(), server.port()))) {
            RunContext context = new RunContext(options, admin);
            for (LockLibrary library : List.of(new RelockLibrary("test"), new RedissonLibrary("test"))) {
                WaitersResult r = s2.run(library, context);
                report.add(r);
                String who = library.id() + ": " + r;
                assertTrue(r.ran(), who);
                assertEquals(200, r.waiters(), who);
                assertEquals(20, r.keys(), who);
                assertEquals(2, r.clients(), who);
                assertEquals(0, r.failed(), who);
                assertEquals(0, r.unfinished(), who);
                assertEquals(0, r.timedOut(), who);
                assertEquals(0, r.overslept(), who);
                assertEquals(0, r.overlaps(), who);
                assertEquals(180, r.wakeUps(), "every acquisition but each key's first follows a release: " + who);
                assertTrue(r.p50WakeUpMicros() <= r.p99WakeUpMicros() && r.p99WakeUpMicros() <= r.maxWakeUpMicros(),
                        who);
                assertTrue(r.maxWakeUpMicros() < 30_000_000, who);
                assertTrue(r.seconds() > 0.5 && r.seconds() < 45, "10 holds of 50 ms per key, in turn: " + who);
                assertTrue(r.peakPubSub() >= 1, "waiters wait on pub/sub: " + who);
                assertTrue(r.backToBaseline(), "subscriptions back to what they were: " + who);
            }
            WaitersResult relock = report.waitersResults().get(0);
            assertTrue(relock.onePubSubPerClient(), "relock keeps one pub/sub connection per client: " + relock);
            assertTrue(relock.before().channels() >= 2, "each relock client keeps its anchor channel: " + relock);

            WaitersResult skipped = s2.run(new SpringIntegrationLibrary(RedisLockType.PUB_SUB_LOCK, "test"), context);
            assertFalse(skipped.ran());
            assertTrue(skipped.note().contains("no asynchronous lock"), skipped.note());
        }
        String markdown = report.render();
        assertTrue(markdown.contains("| relock | 200 | 20 | 2 |"), markdown);
        assertTrue(markdown.contains("| redisson | 200 | 20 | 2 |"), markdown);
        assertTrue(markdown.contains("- S2 relock: PUBSUB NUMSUB back to baseline after: "), markdown);
        assertTrue(markdown.contains("- S2 redisson: one pub/sub connection per client: "), markdown);
    }

    @Test
    void keysMayNotOutnumberWaiters() {
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--s2-waiters=10", "--s2-keys=20"));
        assertEquals(List.of("S2"), Options.parse("--workloads=s2").workloads());
        Options defaults = Options.defaults();
        assertEquals(List.of(10_000, 1_000), List.of(defaults.s2Waiters(), defaults.s2Keys()));
    }
}
