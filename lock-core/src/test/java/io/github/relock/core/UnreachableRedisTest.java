package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisServer;

/** No Redis means a clear exception within the command timeout, never a hang or a silent success. */
@Timeout(60)
@Tag("redis-version-independent")
class UnreachableRedisTest {

    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    @Test
    void aDeadServerFailsCallsPromptlyAndStopsNothingElse() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            LettuceConnectionFactory factory = server.newConnectionFactory(COMMAND_TIMEOUT);
            // a lease well beyond the calls below: a release after it ends is a LockLostException (reported at its end)
            RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(10)).build();
            try {
                ReentrantDistributedLock held = client.getLock("held");
                held.lock();
                server.kill();

                long start = System.nanoTime();
                assertThatThrownBy(() -> client.getLock("other").tryLock(5, TimeUnit.SECONDS))
                        .isInstanceOf(LockOperationException.class)
                        .hasMessageContaining("'other'")
                        .hasMessageContaining("Redis did not answer");
                long acquireMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

                start = System.nanoTime();
                assertThatThrownBy(held::unlock).isInstanceOf(LockOperationException.class)
                        .hasMessageContaining("freed when its lease ends");
                long releaseMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("Redis down: acquire failed after %d ms, release (3 attempts) after %d ms%n",
                        acquireMillis, releaseMillis);
                assertThat(acquireMillis).isLessThan(COMMAND_TIMEOUT.toMillis() * 4);
                assertThat(releaseMillis).isLessThan(COMMAND_TIMEOUT.toMillis() * 8);
                assertThat(client.heldLocks()).as("renewal stopped for the released hold").isEmpty();
            }
            finally {
                long start = System.nanoTime();
                client.close();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
                factory.destroy();
            }
            assertThat(Thread.getAllStackTraces().keySet())
                    .noneMatch(t -> t.getName().equals("relock-watchdog-" + client.getClientId()));
        }
    }

    @Test
    void aServerThatWasNeverThereFailsTheFirstCall() {
        int port;
        try (RedisServer gone = RedisServer.start()) {
            port = gone.port(); // a loopback port nothing listens on any more
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
        factory.afterPropertiesSet();
        factory.start();
        try (RedisLockClient client = RedisLockClient.builder(factory).build()) {
            assertThatThrownBy(() -> client.getLock("x").lock()).isInstanceOf(LockOperationException.class)
                    .hasMessageContaining("'x'");
        }
        finally {
            factory.destroy();
        }
    }
}
