package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

// One setup for the class; the tests run in order because each failover changes the roles.
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("jdk-independent")
class RedisSentinelSetupTest {

    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    @Test
    @Order(1)
    void startsAPrimaryAReplicaAndThreeSentinels(RedisSentinelSetup setup) {
        assertThat(setup.sentinels()).hasSize(3).allMatch(RedisServer::isRunning);
        assertThat(setup.primary().command("ROLE")).startsWith("master");
        assertThat(setup.replica().command("ROLE")).startsWith("slave");
        assertThat(setup.primary()).isNotSameAs(setup.replica());
    }

    @Test
    @Order(2)
    void aClientFollowsAFailoverToTheNewPrimary() {
        RedisSentinelSetup setup = sentinel.setup();
        StringRedisTemplate template = new StringRedisTemplate(sentinel.newConnectionFactory());
        template.opsForValue().set("before", "1");
        RedisServer oldPrimary = setup.primary();

        setup.failover();

        RedisServer newPrimary = setup.primary();
        assertThat(newPrimary).isNotSameAs(oldPrimary);
        assertThat(newPrimary.command("ROLE")).startsWith("master");
        assertThat(oldPrimary.command("ROLE")).startsWith("slave");
        assertThat(setup.replica()).isSameAs(oldPrimary);
        writeEventually(template, "after", "2");
        assertThat(newPrimary.command("GET", "after")).isEqualTo("2");
        assertThat(newPrimary.command("GET", "before")).isEqualTo("1"); // replicated before the failover
    }

    @Test
    @Order(3)
    void killingThePrimaryPromotesTheReplica() {
        RedisSentinelSetup setup = sentinel.setup();
        StringRedisTemplate template = new StringRedisTemplate(sentinel.newConnectionFactory());
        template.opsForValue().set("k", "v");
        RedisServer oldPrimary = setup.primary();

        setup.killPrimaryAndAwaitFailover();

        assertThat(oldPrimary.isRunning()).isFalse();
        assertThat(setup.primary()).isNotSameAs(oldPrimary);
        writeEventually(template, "k2", "v2");
        assertThat(setup.primary().command("GET", "k2")).isEqualTo("v2");

        setup.restartAsReplica(oldPrimary);

        assertThat(oldPrimary.command("ROLE")).startsWith("slave");
        assertThat(setup.replica()).isSameAs(oldPrimary);
    }

    @Test
    @Order(4)
    void theRejoinedNodeCanBePromotedAgain() {
        RedisSentinelSetup setup = sentinel.setup();
        RedisServer before = setup.primary();

        setup.failover();

        assertThat(setup.primary()).isNotSameAs(before);
        assertThat(setup.primary().command("SET", "x", "y")).isEqualTo("OK");
    }

    // The first write after a failover may still meet the dropped connection; a client retries.
    private static void writeEventually(StringRedisTemplate template, String key, String value) {
        Await.untilTrue(Duration.ofSeconds(15), "a write through Sentinel to succeed", () -> {
            template.opsForValue().set(key, value);
            return true;
        });
    }
}
