package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.lettuce.core.api.sync.RedisCommands;

// Ordered: later tests check that the extension repairs what earlier ones broke.
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@Tag("jdk-independent")
class RedisServerExtensionTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static int port;

    @Test
    @Order(1)
    void injectsTheServerTheSharedFactoryAndCommands(RedisServer server, RedisConnectionFactory factory,
            LettuceConnectionFactory lettuce, RedisCommands<String, String> commands) {
        port = server.port();
        assertThat(server.isRunning()).isTrue();
        assertThat(factory).isSameAs(redis.connectionFactory()).isSameAs(lettuce);
        assertThat(redis.server()).isSameAs(server);
        assertThat(redis.redisVersion()).isEqualTo(server.version()).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(redis.host()).isEqualTo("127.0.0.1");
        assertThat(redis.port()).isEqualTo(server.port());
        assertThat(redis.uri()).isEqualTo(server.uri());

        new StringRedisTemplate(factory).opsForValue().set("left-over", "1");
        assertThat(commands.get("left-over")).isEqualTo("1");
    }

    @Test
    @Order(2)
    void everyTestStartsWithAnEmptyServer() {
        assertThat(redis.commands().dbsize()).isZero();
        assertThat(redis.server().port()).isEqualTo(port);
    }

    @Test
    @Order(3)
    void aTestMayKillTheServer(RedisServer server) {
        server.kill();
        assertThat(server.isRunning()).isFalse();
    }

    @Test
    @Order(4)
    void theNextTestGetsItBackOnTheSamePort(RedisServer server) {
        assertThat(server.isRunning()).isTrue();
        assertThat(server.port()).isEqualTo(port);
        assertThat(redis.commands().ping()).isEqualTo("PONG");
    }

    @Test
    @Order(5)
    void aTestMayPauseTheServer(RedisServer server) {
        server.pause();
    }

    @Test
    @Order(6)
    void theNextTestGetsItResumed(RedisServer server) {
        assertThat(server.isPaused()).isFalse();
        assertThat(redis.commands().ping()).isEqualTo("PONG");
    }

    @Test
    @Order(7)
    void extraFactoriesAreIndependentClients() {
        LettuceConnectionFactory second = redis.newConnectionFactory();
        assertThat(second).isNotSameAs(redis.connectionFactory());
        new StringRedisTemplate(second).opsForValue().set("k", "v");
        assertThat(new StringRedisTemplate(redis.connectionFactory()).opsForValue().get("k")).isEqualTo("v");
    }

    @Nested
    class NestedClass {

        @Test
        void sharesTheEnclosingServer(RedisServer server) {
            assertThat(server.port()).isEqualTo(port);
            assertThat(redis.commands().dbsize()).isZero();
        }
    }
}
