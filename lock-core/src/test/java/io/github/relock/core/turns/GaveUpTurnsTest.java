package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.Contenders;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Lines;
import io.github.relock.test.RedisServerExtension;

/**
 * A client whose last local waiter of a lock gives up (timed out, or an async wait cancelled) leaves the plain
 * lock's line: the next release keeps no turn for it, so the lock is free at once for anyone, tryLock()
 * included. A turn kept for nobody would cost every release 50 ms under overload, and more waits would time out.
 */
@Timeout(60)
@Tag("jdk-independent")
class GaveUpTurnsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = new Contenders(redis);

    @Test
    void aReleaseAfterEveryWaiterGaveUpLeavesTheLockFreeForAnyone() throws Exception {
        RedisLockClient h = contenders.newClient();
        String name = "bk3:gaveup:" + System.nanoTime();
        ReentrantDistributedLock held = h.getLock(name);
        held.lock();
        List<Future<Boolean>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RedisLockClient w = contenders.newClient();
            waits.add(contenders.pool().submit(() -> w.getLock(name).tryLock(300, TimeUnit.MILLISECONDS)));
            Lines.awaitInLine(redis, name, w);
        }
        // and an async wait, cancelled
        RedisLockClient async = contenders.newClient();
        LockOwner owner = async.newOwner();
        var pending = async.getLock(name).tryLockAsync(Duration.ofSeconds(20), null, owner);
        Lines.awaitInLine(redis, name, async);
        for (Future<Boolean> wait : waits) {
            assertThat(wait.get(10, TimeUnit.SECONDS)).isFalse();
        }
        pending.cancel(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (redis.commands().exists(Lines.turnKey(h, name)) == 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        String line = redis.commands().get(Lines.turnKey(h, name));
        held.unlock();
        boolean got = contenders.newClient().getLock(name).tryLock();
        assertThat(got).as("tryLock() right after the release; nobody waits any more (line was: %s)", line).isTrue();
    }
}
