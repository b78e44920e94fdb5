package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.test.RedisServer;

/**
 * The acknowledgement needs CLIENT ID and INFO besides WAIT. A user whose ACL forbids one of them can take no
 * lock with minReplicas: every acquisition must fail closed (nothing left held in Redis) and say why.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ForbiddenCommandsTest {

    @ParameterizedTest
    @ValueSource(strings = {"-info", "-client|id", "-wait"})
    void aCommandTheAclForbidsFailsTheAcquisitionClosedAndSaysWhich(String rule) throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            // a subcommand is denied by itself from Redis 7 on
            assumeTrue(!rule.contains("|") || !primary.version().startsWith("6."), "Redis 7 ACL syntax");
            primary.command("ACL", "SETUSER", "locker", "on", ">secret", "~*", "&*", "+@all", rule);
            RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(primary.host(), primary.port());
            config.setUsername("locker");
            config.setPassword("secret");
            LettuceConnectionFactory factory = new LettuceConnectionFactory(config,
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
            factory.afterPropertiesSet();
            factory.start();
            try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(30))
                    .minReplicas(1).replicaAckTimeout(Duration.ofMillis(500)).build()) {
                ReentrantDistributedLock lock = client.getLock("forbidden");
                String command = rule.substring(1).replace('|', ' ');
                assertThatThrownBy(lock::tryLock).isInstanceOf(LockOperationException.class)
                        .satisfies(ex -> System.out.println(rule + ": " + ex.getMessage()))
                        .hasMessageContaining("NOPERM").hasMessageContaining(command.split(" ")[0])
                        .hasMessageContaining("Redis refused it");
                assertThat(lock.isHeldByCurrentThread()).isFalse();
                assertThat(primary.command("EXISTS", "lock:{forbidden}")).as("given back").isEqualTo("0");
                assertThat(client.heldLocks()).isEmpty();
            }
            finally {
                factory.destroy();
            }
        }
    }
}
