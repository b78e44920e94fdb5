package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisServerExtension;

class ArgumentsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static RedisLockClient client;

    @BeforeAll
    static void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @Test
    void lockNamesMustHaveText() {
        assertThatThrownBy(() -> client.getLock(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> client.getLock("  ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> client.getLock("x", null)).isInstanceOf(NullPointerException.class).hasMessageContaining("owner");
    }

    @Test
    void lockNamesHaveALengthLimitThatSaysWhatToDo() {
        assertThat(client.getLock("n".repeat(1024)).getName()).hasSize(1024);
        assertThatThrownBy(() -> client.getLock("n".repeat(1025))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1024 characters, was 1025").hasMessageContaining("shorter key");
        assertThat(RedisLockClient.MAX_NAME_LENGTH).isEqualTo(1024);
    }

    @Test
    void durationsMustBeSane() {
        ReentrantDistributedLock lock = client.getLock("args");
        assertThatThrownBy(() -> lock.tryLock(0, 0, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.tryLock(0, -5, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.tryLock(0, 10, TimeUnit.NANOSECONDS)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 ms");
        assertThatThrownBy(() -> lock.lock(400, TimeUnit.DAYS)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("365 days");
        assertThatThrownBy(() -> lock.tryLock(1, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unit");
    }

    @Test
    void builderRejectsBadSettings() {
        RedisLockClient.Builder builder = RedisLockClient.builder(redis.connectionFactory());
        assertThatThrownBy(() -> RedisLockClient.builder(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("connectionFactory");
        assertThatThrownBy(() -> builder.keyPrefix("a{b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> builder.keyPrefix(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> builder.watchdogTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("watchdogTimeout");
        assertThatThrownBy(() -> builder.watchdogTimeout(Duration.ofDays(2))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("watchdogTimeout");
        assertThatThrownBy(() -> builder.clientId("a:b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clientId");
        assertThatThrownBy(() -> builder.clientId(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clientId");
    }

    /**
     * A client id half of a UTF-16 surrogate pair reaches Redis as '?' in its owner ids, so the release announcements
     * that name its waiters never match them (a reader let in woke a second late, on its timer): refused instead.
     */
    @Test
    void aClientIdThatUtf8CannotCarryIsRefused() {
        RedisLockClient.Builder builder = RedisLockClient.builder(redis.connectionFactory());
        assertThatThrownBy(() -> builder.clientId("x\uD800")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientId").hasMessageContaining("surrogate");
        assertThatThrownBy(() -> builder.clientId("\uDC00y")).isInstanceOf(IllegalArgumentException.class);
        builder.clientId("gr\u00f6\u00dfe \uD83D\uDE00 12 5 x\n"); // any other text is fine
    }

    /** A WAIT the client gives up on still blocks its connection on the server: refused when built, not met later. */
    @Test
    void aReplicaAckTimeoutMustBeShorterThanTheCommandTimeout() {
        LettuceConnectionFactory factory = redis.server().newConnectionFactory(Duration.ofSeconds(1));
        assertThatThrownBy(() -> RedisLockClient.builder(factory).minReplicas(1).replicaAckTimeout(Duration.ofSeconds(1))
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAckTimeout (PT1S) must be at least 200ms shorter than the connection "
                        + "factory's command timeout (PT1S)").hasMessageContaining("a WAIT that Redis still blocks");
        RedisLockClient.builder(factory).minReplicas(1).replicaAckTimeout(Duration.ofMillis(800)).build().close();
        RedisLockClient.builder(factory).replicaAckTimeout(Duration.ofSeconds(1)).build().close(); // no WAIT: no bound
    }
}
