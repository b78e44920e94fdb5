package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * 200 clients made and closed in a row on one connection factory, each with some lock traffic (a watchdog
 * hold, a contended wait woken by a release, async waits, one left pending at close): threads, server
 * connections and subscriptions go back to where they were, and a closed client can be collected.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ManyClientsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void clientsComeAndGoWithoutLeaving() throws Exception {
        RedisCommands<String, String> server = redis.commands();
        LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofSeconds(2));
        RedisLockClient resident = RedisLockClient.builder(factory).build();
        ReentrantDistributedLock residentLock = resident.getLock("bk5:many:shared");
        residentLock.lock();
        residentLock.unlock(); // the factory's shared connection is open now
        List<String> baseChannels = Probe.channels(server);
        int baseConnections = Probe.clientCount(server);
        int baseThreads = Thread.activeCount();
        WeakReference<RedisLockClient> firstClosed = null;
        int[] threadsAt = new int[201];
        int[] connectionsAt = new int[201];
        for (int i = 0; i < 200; i++) {
            long s0 = System.nanoTime();
            RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(1)).build();
            ReentrantDistributedLock own = client.getLock("bk5:many:own:" + i);
            own.lock();
            // contended: the resident holds, this client waits (sync and async), the resident releases
            residentLock.lock();
            var asyncOwner = client.newOwner();
            CompletableFuture<Boolean> async = client.getLock("bk5:many:shared")
                    .tryLockAsync(Duration.ofSeconds(5), Duration.ofSeconds(5), asyncOwner);
            CompletableFuture<Boolean> pending = client.getLock("bk5:many:never")
                    .tryLockAsync(Duration.ofSeconds(30), null, client.newOwner());
            if (i == 0) {
                resident.getLock("bk5:many:never").tryLock(); // held by the resident for good
            }
            Thread.sleep(5);
            residentLock.unlock();
            assertThat(async.get(5, TimeUnit.SECONDS)).isTrue();
            client.getLock("bk5:many:shared").unlockAsync(asyncOwner).get(5, TimeUnit.SECONDS);
            own.unlock();
            long s1 = System.nanoTime();
            client.close();
            long s2 = System.nanoTime();
            if ((s2 - s0) > 1_000_000_000L) {
                System.out.printf("client %d: traffic %d ms, close %d ms%n", i, (s1 - s0) / 1_000_000, (s2 - s1) / 1_000_000);
            }
            assertThat(Probe.eventually(2_000, pending::isDone)).isTrue();
            if (i == 0) {
                firstClosed = new WeakReference<>(client);
            }
            client = null;
            threadsAt[i] = Thread.activeCount();
            connectionsAt[i] = Probe.clientCount(server);
        }
        assertThat(Probe.eventually(5_000, () -> Probe.relockThreads("").stream()
                .allMatch(n -> n.contains(resident.getClientId()))))
                .as("relock threads left: %s", Probe.relockThreads("")).isTrue();
        assertThat(Probe.eventually(3_000, () -> Probe.clientCount(server) <= baseConnections))
                .as("server connections: %d at start, %d now; after 20 clients %d, after 200 %d", baseConnections,
                        Probe.clientCount(server), connectionsAt[19], connectionsAt[199])
                .isTrue();
        assertThat(Probe.channels(server)).containsExactlyInAnyOrderElementsOf(baseChannels);
        assertThat(Thread.activeCount()).as("threads: %d at start, after 20 clients %d, after 200 %d", baseThreads,
                threadsAt[19], threadsAt[199]).isLessThanOrEqualTo(baseThreads + 3);
        for (int i = 0; i < 10 && firstClosed.get() != null; i++) {
            System.gc();
            Thread.sleep(100);
        }
        assertThat(firstClosed.get()).as("a closed client is still reachable").isNull();
        resident.close();
    }
}
