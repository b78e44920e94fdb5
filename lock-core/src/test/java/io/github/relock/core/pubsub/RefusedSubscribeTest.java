package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * An ACL that refuses SUBSCRIBE (no channel permission at all, only the client's anchor channel, or no
 * SUBSCRIBE command) is an answer, not a silence: the wait must end at once with a LockOperationException
 * that says Redis refused it, blocking and asynchronous alike, and not poll until its wait time is up.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class RefusedSubscribeTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private LettuceConnectionFactory factory;

    @AfterEach
    void tearDown() {
        if (factory != null) {
            factory.destroy();
        }
    }

    private RedisLockClient clientAs(String user, String... rules) {
        String[] args = new String[rules.length + 3];
        args[0] = "SETUSER";
        args[1] = user;
        args[2] = "reset";
        System.arraycopy(rules, 0, args, 3, rules.length);
        String reply = redis.server().command(prepend("ACL", args));
        assertThat(reply).isEqualTo("OK");
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration("127.0.0.1", redis.server().port());
        config.setUsername(user);
        config.setPassword("pw");
        factory = new LettuceConnectionFactory(config,
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        return RedisLockClient.builder(factory).build();
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    @ParameterizedTest
    @ValueSource(strings = { "nochannels", "anchoronly", "nosubscribe" })
    void aRefusedSubscribeEndsTheWaitAtOnce(String kind) throws Exception {
        String[] rules = switch (kind) {
            case "nochannels" -> new String[] { "on", ">pw", "~*", "+@all", "resetchannels" };
            case "anchoronly" -> new String[] { "on", ">pw", "~*", "+@all", "resetchannels", "&*__relock_client__*" };
            default -> new String[] { "on", ">pw", "~*", "&*", "+@all", "-subscribe" };
        };
        try (RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient client = clientAs("bk7-" + kind, rules)) {
            holder.getLock("bk7:acl").lock();
            ReentrantDistributedLock lock = client.getLock("bk7:acl");
            long start = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLock(10, TimeUnit.SECONDS)).isInstanceOf(LockOperationException.class)
                    .hasMessageContaining("Redis refused it").hasMessageContaining("NOPERM");
            long start2 = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLockAsync(Duration.ofSeconds(10), null, client.newOwner())
                    .get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(LockOperationException.class).hasMessageContaining("Redis refused it")
                    .hasMessageContaining("NOPERM");
            long end = System.nanoTime();
            assertThat(TimeUnit.NANOSECONDS.toMillis(start2 - start)).as("ms to the blocking failure").isLessThan(5_000);
            assertThat(TimeUnit.NANOSECONDS.toMillis(end - start2)).as("ms to the async failure").isLessThan(5_000);
            assertThat(lock.tryLock()).isFalse(); // commands still work
        }
    }
}
