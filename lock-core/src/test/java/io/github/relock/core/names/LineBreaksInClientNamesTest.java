package io.github.relock.core.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.LockKinds;
import io.github.relock.test.RedisServerExtension;

/**
 * A release that names the waiter it lets in (a fair lock's next in line, the writer a read-write lock's release
 * gave the write hold to, the readers a write release let in) wakes it at once, whatever its client's name holds:
 * a line break at its start, or inside it.
 */
@Timeout(60)
class LineBreaksInClientNamesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Well under the wait's own look again (a writer's about 1.3 s after its attempt, a fair waiter's about 1 s). */
    private static final long WAKE_MILLIS = 400;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"fair|fair|\\nf", "write|read|\\nw", "write|write|\\nw", "read|write|\\nr",
            "read|write|r\\nr", "write|read|w\\nw", "fair|fair|f\\nf"})
    void aNamedWaiterWakesAtTheReleaseWhateverLineBreaksItsClientNameHolds(String kind, String heldKind,
            String clientName) throws Exception {
        String name = "linebreak:" + kind + ":" + heldKind + ":" + clientName.hashCode();
        try (RedisLockClient holderClient = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiters = RedisLockClient.builder(redis.connectionFactory())
                        .clientId(clientName.replace("\\n", "\n")).build()) {
            ReentrantDistributedLock held = LockKinds.of(holderClient, heldKind, name);
            LockOwner holder = holderClient.newOwner();
            held.lockAsync(holder).get(10, TimeUnit.SECONDS);
            CompletableFuture<Boolean> waiting = LockKinds.of(waiters, kind, name).tryLockAsync(Duration.ofSeconds(20),
                    null, waiters.newOwner());
            Thread.sleep(250); // subscribed and asleep
            assertThat(waiting).isNotDone();

            long released = System.nanoTime();
            held.unlockAsync(holder).get(10, TimeUnit.SECONDS);
            assertThat(waiting.get(20, TimeUnit.SECONDS)).isTrue();

            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).as("woken after the release, ms")
                    .isLessThan(WAKE_MILLIS);
        }
    }
}
