package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServer;

/**
 * Redis ends a timed-out WAIT at its next timer tick (every 100 ms at the default hz), not at the timeout
 * itself: an acknowledgement timeout just under the command timeout still lets the driver give up first.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ReplicaAckTimeoutMarginTest {

    @Test
    void anAckTimeoutJustUnderTheCommandTimeoutIsRefused() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofSeconds(1));
            assertThatThrownBy(() -> RedisLockClient.builder(factory).minReplicas(1)
                    .replicaAckTimeout(Duration.ofMillis(900)).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 200ms shorter");
            RedisLockClient.builder(factory).minReplicas(1).replicaAckTimeout(Duration.ofMillis(800)).build().close();
        }
    }

    /** Lettuce waits for ever on a command timeout of zero: nothing for the WAIT to stay under. */
    @Test
    void aFactoryWithoutCommandTimeoutBoundsNothing() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ZERO);
            RedisLockClient.builder(factory).minReplicas(1).replicaAckTimeout(Duration.ofSeconds(1)).build().close();
        }
    }

    /** What the margin is for: no replica, so every WAIT runs to its timeout; none may outlast the driver. */
    @Test
    void anUnacknowledgedAcquisitionWithinTheMarginIsRefusedCleanlyNotTimedOut() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofSeconds(1));
            try (RedisLockClient client = RedisLockClient.builder(factory).minReplicas(1)
                    .replicaAckTimeout(Duration.ofMillis(700)).build()) {
                List<String> outcomes = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    var lock = client.getLock("margin-" + i);
                    try {
                        outcomes.add(lock.tryLock() ? "taken" : "refused");
                    }
                    catch (RuntimeException ex) {
                        outcomes.add("failed: " + ex.getMessage());
                    }
                    outcomes.add(redis.command("EXISTS", lock.getKey()));
                }
                assertThat(outcomes).as("each acquisition refused (no replica) and given back at once")
                        .containsExactly("refused", "0", "refused", "0", "refused", "0", "refused", "0", "refused", "0");
            }
        }
    }
}
