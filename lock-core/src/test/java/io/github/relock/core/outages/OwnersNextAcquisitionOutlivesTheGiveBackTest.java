package io.github.relock.core.outages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.LockKinds;
import io.github.relock.test.RedisServer;

/**
 * One owner's two acquisitions at once while Redis is paused: the first times out, and the hold it may take when
 * Redis resumes is given back; the second, queued behind it in the owner's turn, goes to Redis after that give-back,
 * so the hold it takes is kept: the other client stays out, and the owner releases it as its own.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class OwnersNextAcquisitionOutlivesTheGiveBackTest {

    @ParameterizedTest
    @ValueSource(strings = { "plain", "fair", "write", "read" })
    void theHoldTakenAfterATimedOutOneIsKept(String kind) throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory(Duration.ofMillis(500)))
                        .build();
                RedisLockClient other = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(2)))
                        .build()) {
            String name = "given-back:" + kind;
            Function<RedisLockClient, ReentrantDistributedLock> lockOf = c -> LockKinds.of(c, kind, name);
            ReentrantDistributedLock lock = lockOf.apply(client);
            LockOwner owner = client.newOwner();
            lock.lockAsync(owner).get(5, TimeUnit.SECONDS); // loads the scripts
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
            CompletableFuture<Boolean> second;
            server.pause();
            try {
                CompletableFuture<Boolean> first = lock.tryLockAsync(Duration.ofMillis(300), null, owner);
                Thread.sleep(100);
                second = lock.tryLockAsync(Duration.ofSeconds(10), null, owner);
                assertThatThrownBy(() -> first.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(LockOperationException.class);
                Thread.sleep(150);
            }
            finally {
                server.resume(); // the first acquisition, its give-back, then the second run in that order
            }
            assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(300);
            ReentrantDistributedLock theirs = kind.equals("read") ? other.getReadWriteLock(name).writeLock()
                    : lockOf.apply(other);
            assertThat(theirs.tryLock(500, TimeUnit.MILLISECONDS)).as("the owner's hold keeps the other client out")
                    .isFalse();
            assertThat(client.heldLocks()).hasSize(1);
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
            assertThat(theirs.tryLock(2, TimeUnit.SECONDS)).isTrue();
            theirs.unlock();
        }
    }
}
