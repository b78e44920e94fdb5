package io.github.relock.core.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.WakeUp;
import io.github.relock.test.RedisServerExtension;

/**
 * Subscribing to one lock's release channel talks to Redis; it must not hold up threads that wait for
 * other locks, and no thread may block on a monitor while it does (virtual threads would pin a carrier).
 */
@Timeout(60)
class SubscriptionIsolationTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aSubscriptionThatHangsDoesNotHoldUpWaitersOfOtherLocks() throws Exception {
        LettuceConnectionFactory factory = redis.newConnectionFactory();
        ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(factory, "lock:__relock_client__:isolation");
        joined(subscriptions, "warm-up").close(); // the pub/sub connection is up, and its anchor keeps it so
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Void> second = new CompletableFuture<>();
        String channelA = LockKeys.of("lock:", "a").channel();
        String channelB = LockKeys.of("lock:", "b").channel();
        Thread a = new Thread(() -> joinAndLeave(subscriptions, channelA, first), "joins-a");
        Thread b = new Thread(() -> joinAndLeave(subscriptions, channelB, second), "joins-b");
        redis.server().pause(); // SIGSTOP: a SUBSCRIBE sent now gets no answer until the resume
        try {
            a.start();
            Thread.sleep(300); // a is inside its SUBSCRIBE
            b.start();
            Thread.sleep(300);
            ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(b.getId());
            System.out.printf("joins-b while joins-a's SUBSCRIBE hangs: %s on %s (owned by %s)%n", info.getThreadState(),
                    info.getLockName(), info.getLockOwnerName());
            assertThat(info.getThreadState()).as("blocked on a monitor").isNotEqualTo(Thread.State.BLOCKED);
            assertThat(info.getLockOwnerId()).as("waiting for something joins-a holds").isNotEqualTo(a.getId());
        }
        finally {
            redis.server().resume();
        }
        first.get(30, TimeUnit.SECONDS);
        second.get(30, TimeUnit.SECONDS);
        assertThat(subscriptions.activeChannels()).isZero();
        subscriptions.close();
        factory.destroy();
    }

    private static void joinAndLeave(ReleaseSubscriptions subscriptions, String channel, CompletableFuture<Void> done) {
        try {
            joined(subscriptions, channel).close();
            done.complete(null);
        }
        catch (Throwable ex) {
            done.completeExceptionally(ex);
        }
    }

    /** Joins {@code channel}'s waiters as a lock's wait does, and waits here until Redis confirmed the subscription. */
    private static ReleaseWaiter joined(ReleaseSubscriptions subscriptions, String channel) {
        return subscriptions.joinAsync(channel, null, WakeUp.ONE, "", () -> { }).join();
    }

}
