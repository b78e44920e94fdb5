package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * close() of a client while its threads wait in lock()/tryLock(wait)/lockInterruptibly(), while async waits
 * are pending (plain, fair, read-write), and while it holds locks the watchdog renews: every waiter ends
 * promptly with an exception, renewals stop, relock threads end, subscriptions go, and the lock is promptly
 * free for another client once its holder lets go.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseWhileWaitingTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void closeEndsEveryKindOfWaiterAndLeavesNothing() throws Exception {
        RedisCommands<String, String> server = redis.commands();
        List<String> baseChannels = Probe.channels(server);
        RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).build();
        RedisLockClient closing = RedisLockClient.builder(redis.newConnectionFactory())
                .watchdogTimeout(Duration.ofSeconds(3)).build();
        RedisLockClient other = RedisLockClient.builder(redis.newConnectionFactory()).build();
        String id = closing.getClientId();
        try {
            ReentrantDistributedLock plain = holder.getLock("bk5:close:plain");
            ReentrantDistributedLock fair = holder.getFairLock("bk5:close:fair");
            ReentrantDistributedLock write = holder.getReadWriteLock("bk5:close:rw").writeLock();
            plain.lock();
            fair.lock();
            write.lock();
            // the closing client holds two locks of its own, renewed by its watchdog
            ReentrantDistributedLock ownA = closing.getLock("bk5:close:ownA");
            ownA.lock();
            ReentrantDistributedLock ownB = closing.getLock("bk5:close:ownB");
            ownB.lock();

            List<CompletableFuture<Object>> sync = new ArrayList<>();
            CountDownLatch started = new CountDownLatch(9);
            for (String kind : List.of("lock", "tryLock", "interruptibly")) {
                for (int i = 0; i < 3; i++) {
                    ReentrantDistributedLock target = switch (i) {
                        case 0 -> closing.getLock("bk5:close:plain");
                        case 1 -> closing.getFairLock("bk5:close:fair");
                        default -> closing.getReadWriteLock("bk5:close:rw").readLock();
                    };
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    Thread t = new Thread(() -> {
                        started.countDown();
                        try {
                            switch (kind) {
                                case "lock" -> target.lock();
                                case "tryLock" -> target.tryLock(40, TimeUnit.SECONDS);
                                default -> target.lockInterruptibly();
                            }
                            f.complete("acquired");
                        }
                        catch (Throwable ex) {
                            f.complete(ex);
                        }
                    }, "bk5-waiter-" + kind + "-" + i);
                    t.setDaemon(true);
                    t.start();
                    sync.add(f);
                }
            }
            List<CompletableFuture<?>> async = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                ReentrantDistributedLock target = switch (i % 3) {
                    case 0 -> closing.getLock("bk5:close:plain");
                    case 1 -> closing.getFairLock("bk5:close:fair");
                    default -> closing.getReadWriteLock("bk5:close:rw").readLock();
                };
                async.add(i % 2 == 0 ? target.tryLockAsync(Duration.ofSeconds(40), null, closing.newOwner())
                        : target.lockAsync(closing.newOwner()));
            }
            started.await();
            Thread.sleep(500); // all asleep, subscribed
            assertThat(Probe.numsub(server, closing.redisKeys("bk5:close:plain").releaseChannel())).isPositive();

            long t0 = System.nanoTime();
            closing.close();
            long closeMillis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(closeMillis).as("close() took").isLessThan(2_000);

            for (CompletableFuture<Object> f : sync) {
                Object outcome = f.get(2, TimeUnit.SECONDS);
                assertThat(outcome).as("sync waiter outcome").isInstanceOf(IllegalStateException.class);
            }
            for (CompletableFuture<?> f : async) {
                assertThat(Probe.eventually(2_000, f::isDone)).as("async waiter ended").isTrue();
                try {
                    f.get();
                    throw new AssertionError("async waiter acquired after close");
                }
                catch (ExecutionException ex) {
                    assertThat(ex.getCause()).isInstanceOf(IllegalStateException.class);
                }
            }
            assertThat(Probe.eventually(3_000, () -> Probe.relockThreads(id).isEmpty()))
                    .as("relock threads of the closed client: %s", Probe.relockThreads(id)).isTrue();
            assertThat(Probe.eventually(2_000, () -> Probe.channels(server).equals(baseChannels)))
                    .as("channels after close: %s", Probe.channels(server)).isTrue();
            assertThat(server.clientList()).doesNotContain(id);

            // renewal stopped: the closed client's leases run down (3 s watchdog)
            long pttl1 = server.pttl(ownA.getKey());
            Thread.sleep(1_500);
            long pttl2 = server.pttl(ownA.getKey());
            assertThat(pttl2).as("lease of a closed client's hold, %d then %d", pttl1, pttl2).isLessThan(pttl1);

            // the turn line of the plain lock: the closed client's id does not hold the lock up for long
            plain.unlock();
            ReentrantDistributedLock next = other.getLock("bk5:close:plain");
            long t1 = System.nanoTime();
            assertThat(next.tryLock(2, TimeUnit.SECONDS)).isTrue();
            long took = (System.nanoTime() - t1) / 1_000_000;
            assertThat(took).as("ms for another client to take the freed plain lock").isLessThan(300);
            next.unlock();
            fair.unlock();
            ReentrantDistributedLock nextFair = other.getFairLock("bk5:close:fair");
            t1 = System.nanoTime();
            assertThat(nextFair.tryLock(5, TimeUnit.SECONDS)).isTrue();
            took = (System.nanoTime() - t1) / 1_000_000;
            assertThat(took).as("ms for another client to take the freed fair lock").isLessThan(500);
            nextFair.unlock();
            write.unlock();
            assertThat(other.getReadWriteLock("bk5:close:rw").writeLock().tryLock(2, TimeUnit.SECONDS)).isTrue();
            other.getReadWriteLock("bk5:close:rw").writeLock().unlock();
        }
        finally {
            holder.close();
            closing.close();
            other.close();
        }
    }
}
