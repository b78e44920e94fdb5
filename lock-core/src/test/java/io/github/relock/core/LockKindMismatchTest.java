package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * A plain and a fair lock of one name are kept apart in Redis; two clients that disagree on the kind (a rolling
 * configuration change) must not both get in: whichever comes second while the other holds is refused with
 * {@link LockKindMismatchException}, and nothing of its attempt stays behind.
 */
@Timeout(60)
class LockKindMismatchTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private RedisLockClient plainClient;
    private RedisLockClient fairClient;

    @BeforeEach
    void clients() {
        plainClient = RedisLockClient.builder(redis.connectionFactory()).build();
        fairClient = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void close() {
        plainClient.close();
        fairClient.close();
    }

    @Test
    void aFairAttemptOnAHeldPlainLockFails() throws InterruptedException {
        ReentrantDistributedLock plain = plainClient.getLock("kind:1");
        ReentrantDistributedLock fair = fairClient.getFairLock("kind:1");
        assertThat(plain.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            assertThatThrownBy(() -> fair.tryLock(0, TimeUnit.SECONDS))
                    .isInstanceOfSatisfying(LockKindMismatchException.class, ex -> {
                        assertThat(ex.getLockName()).isEqualTo("kind:1");
                        assertThat(ex).hasMessageContaining("plain").hasMessageContaining("fair");
                    });
            assertThatThrownBy(() -> fair.tryLock(1, TimeUnit.SECONDS)).as("a waiting attempt too")
                    .isInstanceOf(LockKindMismatchException.class);
            assertThat(fair.isHeldByCurrentThread()).isFalse();
        }
        finally {
            plain.unlock();
        }
        assertThat(fair.tryLock(0, TimeUnit.SECONDS)).as("free again: the other kind may take it").isTrue();
        fair.unlock();
    }

    @Test
    void aPlainAttemptOnAHeldFairLockFails() throws InterruptedException {
        ReentrantDistributedLock plain = plainClient.getLock("kind:2");
        ReentrantDistributedLock fair = fairClient.getFairLock("kind:2");
        assertThat(fair.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            assertThatThrownBy(() -> plain.tryLock(0, TimeUnit.SECONDS))
                    .isInstanceOf(LockKindMismatchException.class);
            assertThatThrownBy(() -> plain.tryLock(Duration.ofSeconds(1).toMillis(), 5_000, TimeUnit.MILLISECONDS))
                    .as("with a lease, waiting").isInstanceOf(LockKindMismatchException.class);
            assertThat(plain.isLocked()).as("the plain hash was never written").isFalse();
        }
        finally {
            fair.unlock();
        }
        assertThat(plain.tryLock(0, TimeUnit.SECONDS)).isTrue();
        plain.unlock();
    }

    /** The other kind's counter says its last hold was released: its hash is not even looked at. */
    @Test
    void kindsTakeTurnsWhenNeitherHolds() throws InterruptedException {
        ReentrantDistributedLock plain = plainClient.getLock("kind:3");
        ReentrantDistributedLock fair = fairClient.getFairLock("kind:3");
        for (int i = 0; i < 3; i++) {
            assertThat(plain.tryLock(0, TimeUnit.SECONDS)).isTrue();
            plain.unlock();
            assertThat(fair.tryLock(0, TimeUnit.SECONDS)).isTrue();
            fair.unlock();
        }
    }
}
