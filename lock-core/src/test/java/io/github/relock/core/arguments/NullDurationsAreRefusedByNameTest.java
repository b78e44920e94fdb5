package io.github.relock.core.arguments;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A null wait or lease given as a {@link Duration} is refused as the other null arguments are (a null
 * {@code TimeUnit}, a null {@code waitTime} of {@code tryLockAsync}): an {@link IllegalArgumentException} that
 * names the argument, not a {@link NullPointerException} from inside a default method.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class NullDurationsAreRefusedByNameTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final RedisLockClient client = RedisLockClient.builder(redis.newConnectionFactory()).build();

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void theAsyncCallNamesANullWait() {
        ReentrantDistributedLock lock = client.getLock("null-durations:async");
        LockOwner owner = client.newOwner();
        assertThatThrownBy(() -> lock.tryLockAsync(null, null, owner)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
    }

    @Test
    void theBlockingCallsNameANullWaitAndANullLease() {
        ReentrantDistributedLock lock = client.getLock("null-durations:blocking");
        assertThatThrownBy(() -> lock.tryLock((Duration) null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.tryLock(null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
    }
}
