package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServer;

/**
 * The acknowledgement timeout stays 200 ms under the command timeout (ReplicaAckTimeoutMarginTest), also behind
 * a factory that wraps Lettuce's (tracing, metrics) and does not tell its timeout when built: a WAIT that would
 * outlast the driver is refused cleanly, not failed as "Redis did not answer" with its give-back queued behind it.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class WrappedFactoryAckMarginTest {

    @Test
    void anAckTimeoutAtTheCommandTimeoutBehindAWrapperIsRefusedCleanlyNotTimedOut() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory lettuce = redis.newConnectionFactory(Duration.ofSeconds(1));
            List<String> outcomes = new ArrayList<>();
            List<String> refusals = new ArrayList<>();
            try (RedisLockClient client = RedisLockClient.builder(wrap(lettuce)).minReplicas(1)
                    .replicaAckTimeout(Duration.ofMillis(1_000)).build()) {
                for (int i = 0; i < 8; i++) {
                    var lock = client.getLock("wrapped-margin-" + i);
                    try {
                        outcomes.add(lock.tryLock() ? "taken" : "refused");
                    }
                    catch (IllegalStateException | IllegalArgumentException ex) {
                        refusals.add(ex.getMessage());
                        outcomes.add("refused");
                    }
                    catch (RuntimeException ex) {
                        outcomes.add("failed: " + ex.getMessage());
                    }
                    outcomes.add(redis.command("EXISTS", lock.getKey()));
                }
            }
            catch (IllegalArgumentException refusedAtBuild) {
                refusals.add(refusedAtBuild.getMessage());
            }
            System.out.printf("wrapped Lettuce, 1 s command timeout, 1,000 ms ack timeout: %s; refusals %s%n", outcomes,
                    refusals);
            assertThat(outcomes).as("no acquisition outlasted by its WAIT, nothing left behind")
                    .noneMatch(outcome -> outcome.startsWith("failed") || outcome.equals("1"));
        }
    }

    /** A factory that hides what it wraps, as tracing and metrics wrappers do. */
    private static RedisConnectionFactory wrap(RedisConnectionFactory target) {
        return (RedisConnectionFactory) Proxy.newProxyInstance(WrappedFactoryAckMarginTest.class.getClassLoader(),
                new Class<?>[] {RedisConnectionFactory.class}, (proxy, method, args) -> {
                    try {
                        return method.invoke(target, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
    }
}
