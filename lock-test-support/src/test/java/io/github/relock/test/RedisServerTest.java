package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
@Tag("jdk-independent")
class RedisServerTest {

    @Test
    void startsAnswersPingReportsVersionAndStops() {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.host()).isEqualTo("127.0.0.1");
            assertThat(redis.port()).isPositive();
            assertThat(redis.pid()).isPositive();
            assertThat(redis.isRunning()).isTrue();
            assertThat(redis.version()).matches("\\d+\\.\\d+\\.\\d+");
            assertThat(redis.command("PING")).isEqualTo("PONG");
            assertThat(redis.command("CONFIG", "GET", "bind")).isEqualTo("bind\n127.0.0.1");
            assertThat(redis.command("CONFIG", "GET", "appendonly")).isEqualTo("appendonly\nno");
            assertThat(redis.command("CONFIG", "GET", "save")).isEqualTo("save\n");

            long pid = redis.pid();
            redis.stop();

            assertThat(redis.isRunning()).isFalse();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
        }
    }

    @Test
    void commandRendersEveryReplyType() {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(redis.command("GET", "k")).isEqualTo("v");
            assertThat(redis.command("GET", "missing")).isNull();
            assertThat(redis.command("INCR", "n")).isEqualTo("1");
            assertThat(redis.command("RPUSH", "list", "a", "b")).isEqualTo("2");
            assertThat(redis.command("LRANGE", "list", "0", "-1")).isEqualTo("a\nb");
            assertThatThrownBy(() -> redis.command("NO-SUCH-COMMAND"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("ERR unknown command");
        }
    }

    @Test
    void killThenRestartOnTheSamePortWithEmptyData() {
        try (RedisServer redis = RedisServer.start()) {
            redis.commands().set("key", "value");
            int port = redis.port();
            long pid = redis.pid();

            redis.kill();

            assertThat(redis.isRunning()).isFalse();
            assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(java.io.UncheckedIOException.class);

            redis.restart();

            assertThat(redis.isRunning()).isTrue();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.pid()).isNotEqualTo(pid);
            assertThat(redis.command("DBSIZE")).isEqualTo("0");
            assertThat(redis.commands().get("key")).isNull(); // the shared client reconnected by itself
        }
    }

    @Test
    void restartAsReplicaOfComesBackFollowingTheGivenPrimary() {
        try (RedisServer primary = RedisServer.start(); RedisServer node = RedisServer.start()) {
            primary.command("SET", "k", "v");
            node.kill();

            node.restartAsReplicaOf(primary);

            // a replica from its first reply: it never answers as an empty primary
            assertThat(node.command("ROLE")).startsWith("slave\n127.0.0.1\n" + primary.port());
            Await.untilTrue(Duration.ofSeconds(10), "the replica to sync", () -> "v".equals(node.command("GET", "k")));
            node.restart();
            assertThat(node.command("ROLE")).startsWith("slave"); // later restarts keep following it
            assertThatThrownBy(() -> node.restartAsReplicaOf(node)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void pauseMakesCommandsTimeOutAndResumeMakesThemAnswer() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofMillis(300));
            StringRedisTemplate template = new StringRedisTemplate(factory);
            template.opsForValue().set("k", "v");

            redis.pause();
            assertThat(redis.isPaused()).isTrue();
            long started = System.nanoTime();
            assertThatThrownBy(() -> template.opsForValue().get("k")).isInstanceOf(QueryTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));

            redis.resume();
            assertThat(redis.isPaused()).isFalse();
            assertThat(template.opsForValue().get("k")).isEqualTo("v");
        }
    }

    @Test
    void flushAllEmptiesEveryDatabase() {
        try (RedisServer redis = RedisServer.start()) {
            redis.command("SET", "a", "1");
            redis.command("SELECT", "1"); // a fresh connection per command: this does not stick
            redis.commands().set("b", "2");

            redis.flushAll();

            assertThat(redis.command("DBSIZE")).isEqualTo("0");
        }
    }

    @Test
    void sharedFactoryWorksWithSpringData() {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.connectionFactory()).isSameAs(redis.connectionFactory());
            try (RedisConnection connection = redis.connectionFactory().getConnection()) {
                assertThat(connection.ping()).isEqualTo("PONG");
            }
            new StringRedisTemplate(redis.connectionFactory()).opsForValue().set("x", "y");
            assertThat(redis.commands().get("x")).isEqualTo("y");
        }
    }

    @Test
    void builderTakesExtraArgumentsAndAFixedPort() {
        int port;
        try (RedisServer first = RedisServer.start()) {
            port = first.port();
        }
        try (RedisServer redis = RedisServer.builder().port(port).arg("--maxmemory", "12mb").start()) {
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.command("CONFIG", "GET", "maxmemory")).isEqualTo("maxmemory\n" + 12 * 1024 * 1024);
        }
    }

    @Test
    void replicaOfCopiesThePrimary() throws InterruptedException {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            primary.commands().set("k", "v");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!"v".equals(replica.command("GET", "k")) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(replica.command("GET", "k")).isEqualTo("v");
            assertThat(replica.command("ROLE")).startsWith("slave");
        }
    }

    @Test
    void closeStopsTheProcessAndDeletesItsDirectory() {
        RedisServer redis = RedisServer.start();
        long pid = redis.pid();
        assertThat(redis.dir()).isDirectory();

        redis.close();
        redis.close(); // idempotent

        assertThat(redis.isRunning()).isFalse();
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(Files.exists(redis.dir())).isFalse();
        assertThatThrownBy(redis::restart).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aPasswordIsRequiredOfOthersAndUsedByTheServersOwnClients() {
        try (RedisServer redis = RedisServer.builder().password("s3cret").start()) {
            assertThat(redis.command("PING")).isEqualTo("PONG");
            assertThat(redis.commands().ping()).isEqualTo("PONG");
            try (RedisConnection connection = redis.connectionFactory().getConnection()) {
                assertThat(connection.ping()).isEqualTo("PONG");
            }
            assertThatThrownBy(() -> Resp.call(redis.host(), redis.port(), null, Duration.ofSeconds(5), "PING"))
                    .hasMessageStartingWith("NOAUTH");
        }
    }

    @Test
    void bindListensOnAnotherLocalAddress() {
        Assumptions.assumeTrue(canBind("127.0.0.2"), "127.0.0.2 is not a local address here (Linux routes 127/8)");
        try (RedisServer redis = RedisServer.builder().bind("127.0.0.2").start()) {
            assertThat(redis.host()).isEqualTo("127.0.0.2");
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.2:" + redis.port());
            assertThat(redis.command("CONFIG", "GET", "bind")).isEqualTo("bind\n127.0.0.2");
        }
    }

    @Test
    void aServerThatDoesNotAnswerWithinTheStartTimeoutIsStoppedAndReported() {
        int probed = Ports.freePort(false);
        int other = Ports.freePort(false);
        while (other == probed) { // two free-port picks can return the same port: then it answers where probed
            other = Ports.freePort(false);
        }
        String elsewhere = Integer.toString(other); // it listens there, not where it is probed
        assertThatThrownBy(() -> RedisServer.builder().port(probed).arg("--port", elsewhere)
                .startTimeout(Duration.ofMillis(300)).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not answer PING within 300 ms");
    }

    @Test
    void aStartFailureNamesTheCauseAndTheOutput() {
        assertThatThrownBy(() -> RedisServer.builder().arg("--no-such-option", "1").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                .hasMessageContaining("no-such-option");
    }

    private static boolean canBind(String address) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(address))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
