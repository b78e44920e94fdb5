package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.core.testing.Subscribers;
import io.github.relock.test.RedisServerExtension;

/**
 * The SUBSCRIBEs of waits that gave up, held back by a frozen pub/sub connection, are confirmed once it thaws, after
 * they timed out and their queues went: the client undoes each. Here that meets, at once, the client's close()
 * (the undo must not outlive the client, nor throw on Lettuce's thread) or a pub/sub connection killed on the server
 * (Lettuce subscribes again what Redis confirmed, which is undone again, while new waiters of every kind start).
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class LateConfirmationCloseAndReconnectTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final List<String> KINDS = List.of("plain", "fair", "read", "write");
    /** A release wakes its waiter at once; a wake-up lost would leave it asleep until the holder's 30 s lease ends. */
    private static final long WOKEN_MILLIS = 2_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void closingTheClientAsLateConfirmationsArriveLeavesNoThreadNoSubscriptionAndNothingLogged() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build()) {
            Set<String> threadsBefore = clientThreads();
            RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build();
            FrozenPubSubTest.openPubSub(holder, waiter);
            Held held = holdEveryKind(holder, "lc-close");
            proxy.freezePubSub(true);
            waitsThatGiveUp(waiter, "lc-close");
            root.addAppender(logs);
            proxy.freezePubSub(false);
            CompletableFuture.runAsync(waiter::close).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(lockSubscribers()).as("lock channels subscribed").isZero());
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(without(clientThreads(), threadsBefore)).as("the closed client's threads").isEmpty());
            release(held);
        }
        finally {
            root.detachAppender(logs);
        }
        // what escapes a pub/sub listener, Lettuce and Netty log on their threads
        assertThat(logs.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .filter(e -> e.getLoggerName().startsWith("io.lettuce") || e.getLoggerName().startsWith("io.netty"))
                .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).toList()).isEmpty();
    }

    @Test
    void waitersOfEveryKindAreWokenWhileLateConfirmationsAreSubscribedAgainByAReconnect() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            FrozenPubSubTest.openPubSub(holder, waiter);
            Held held = holdEveryKind(holder, "lc-kill");
            proxy.freezePubSub(true);
            waitsThatGiveUp(waiter, "lc-kill");
            proxy.freezePubSub(false);
            // the confirmations come back now; Lettuce subscribes again, on its new connection, what it saw confirmed
            redis.commands().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
            List<CompletableFuture<Long>> takenAt = new ArrayList<>();
            for (String kind : KINDS) {
                LockOwner owner = waiter.newOwner();
                ReentrantDistributedLock lock = lock(waiter, kind, "lc-kill", owner);
                CompletableFuture<Long> taken = new CompletableFuture<>();
                lock.tryLockAsync(Duration.ofSeconds(15), Duration.ofSeconds(30), owner).whenComplete((ok, failure) -> {
                    long at = System.nanoTime();
                    if (failure != null || !ok) {
                        taken.completeExceptionally(failure != null ? failure : new AssertionError(kind + " not taken"));
                        return;
                    }
                    lock.unlockAsync(owner).whenComplete((unused, notGiven) -> taken.complete(at));
                });
                takenAt.add(taken);
            }
            Thread.sleep(300); // joined (or subscribing) when the release comes
            long released = System.nanoTime();
            release(held);
            List<String> slow = new ArrayList<>();
            for (int i = 0; i < KINDS.size(); i++) {
                long millis = TimeUnit.NANOSECONDS.toMillis(takenAt.get(i).get(20, TimeUnit.SECONDS) - released);
                if (millis > WOKEN_MILLIS) {
                    slow.add(KINDS.get(i) + " taken " + millis + " ms after the release");
                }
            }
            assertThat(slow).isEmpty();
            // nobody waits: every channel goes once the keep (500 ms) is over
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(lockSubscribers()).as("lock channels subscribed").isZero());
        }
    }

    /** What the holder took, with the owner it took it as. */
    private record Held(LockOwner owner, List<ReentrantDistributedLock> locks) {
    }

    /** The holder takes the plain, the fair and the read-write lock of {@code base} (30 s leases). */
    private static Held holdEveryKind(RedisLockClient holder, String base) throws Exception {
        LockOwner owner = holder.newOwner();
        List<ReentrantDistributedLock> held = new ArrayList<>();
        for (String kind : List.of("plain", "fair", "write")) {
            ReentrantDistributedLock lock = lock(holder, kind, base, owner);
            lock.lockAsync(Duration.ofSeconds(30), owner).get(5, TimeUnit.SECONDS);
            held.add(lock);
        }
        return new Held(owner, held);
    }

    private static void release(Held held) throws Exception {
        for (ReentrantDistributedLock lock : held.locks()) {
            lock.unlockAsync(held.owner()).get(5, TimeUnit.SECONDS);
        }
    }

    /**
     * A wait of each kind gives up (300 ms) while its SUBSCRIBE is held back, then this waits until every SUBSCRIBE
     * timed out (1 s after it was sent) and the queues went.
     */
    private static void waitsThatGiveUp(RedisLockClient waiter, String base) throws Exception {
        long start = System.nanoTime();
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        for (String kind : KINDS) {
            LockOwner owner = waiter.newOwner();
            waits.add(lock(waiter, kind, base, owner).tryLockAsync(Duration.ofMillis(300), Duration.ofSeconds(30), owner));
        }
        for (CompletableFuture<Boolean> wait : waits) {
            assertThat(wait.get(5, TimeUnit.SECONDS)).isFalse();
        }
        long left = TimeUnit.MILLISECONDS.toNanos(1_500) - (System.nanoTime() - start);
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static ReentrantDistributedLock lock(RedisLockClient client, String kind, String base, LockOwner owner) {
        return switch (kind) {
            case "plain" -> client.getLock(base + ":plain", owner);
            case "fair" -> client.getFairLock(base + ":fair", owner);
            case "read" -> client.getReadWriteLock(base + ":rw", owner).readLock();
            case "write" -> client.getReadWriteLock(base + ":rw", owner).writeLock();
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** Subscribers of lock channels (every channel but the clients' anchors). */
    private static long lockSubscribers() {
        return Subscribers.ofReleaseChannels(redis.commands());
    }

    /** The client's own threads alive now ({@code relock-} ones). */
    private static Set<String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("relock-"))
                .map(thread -> thread.getName() + "#" + thread.getId()).collect(Collectors.toSet());
    }

    private static Set<String> without(Set<String> now, Set<String> before) {
        return now.stream().filter(name -> !before.contains(name)).collect(Collectors.toSet());
    }
}
