package io.github.relock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * The relock health contributor reports what Boot's Redis indicator cannot: whether locks can be taken.
 * Each refusal case is checked against Boot's own Redis indicator on the same server, which stays UP.
 */
@Timeout(60)
class RelockHealthIndicatorTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis)
            .withConfiguration(AutoConfigurations.of(RelockHealthContributorAutoConfiguration.class));

    // Boot's own Redis indicator beside ours, to show what each of them sees
    private final ApplicationContextRunner withRedisHealth = runner
            .withConfiguration(AutoConfigurations.of(DataRedisHealthContributorAutoConfiguration.class));

    @Test
    void upWithDetailsAndNoProbeKeyLeftBehind() {
        runner.withPropertyValues("relock.client-id=node-1").run(context -> {
            Health health = relockHealth(context);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            String clientId = (String) health.getDetails().get("clientId");
            assertThat(clientId).startsWith("node-1-");
            String probe = RelockContexts.redisKeys(context, RelockHealthIndicator.PROBE_NAME_PREFIX + clientId).lock();
            assertThat(health.getDetails()).containsEntry("heldLocks", 0)
                    .containsEntry("locksLost", 0L).doesNotContainKey("lastLockLost");
            assertThat((String) health.getDetails().get("probe"))
                    .startsWith("took and released " + probe + " ");
            assertThat(redis.commands().exists(probe)).isZero();
        });
    }

    @Test
    void downWhenRedisAnswersButRefusesWritesForWantOfMemory() {
        downWhileBootSaysUp("maxmemory reached", () -> redis.commands().configSet("maxmemory", "1"),
                () -> redis.commands().configSet("maxmemory", "0"), "OOM command not allowed");
    }

    @Test
    void downWhenConnectedToAReadOnlyReplica() {
        // a replica of a primary that is not there: it answers PING and reads, and refuses every write
        downWhileBootSaysUp("read-only replica", () -> redis.commands().replicaof("127.0.0.1", unusedPort()),
                () -> redis.commands().replicaofNoOne(), "READONLY");
    }

    /** With Redis refusing writes: Boot's indicator UP, ours DOWN with Redis' words; UP again once repaired. */
    private void downWhileBootSaysUp(String situation, ThrowingRunnable breakRedis, Runnable repair,
            String redisWords) {
        withRedisHealth.run(context -> {
            breakRedis.run();
            try {
                assertThat(redisHealth(context).getStatus()).as("Boot's Redis indicator").isEqualTo(Status.UP);
                Health health = relockHealth(context);
                System.out.println(situation + ": " + health);
                assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                assertThat(String.valueOf(health.getDetails().get("error"))).contains("Redis refused it: ")
                        .contains(redisWords);
            }
            finally {
                repair.run();
            }
            assertThat(relockHealth(context).getStatus()).isEqualTo(Status.UP);
        });
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    @SuppressWarnings("unchecked")
    void countsLostLocksWithoutTurningDown() {
        runner.withPropertyValues("relock.watchdog-timeout=600ms").run(context -> {
            ReentrantDistributedLock lock = context.getBean(RedisLockClient.class).getLock("report:7");
            lock.lock();
            try {
                assertThat(relockHealth(context).getDetails()).containsEntry("heldLocks", 1);
                redis.commands().del(lock.getKey());
                // isLost() answers for the calling thread's hold: poll on this thread
                await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(lock::isLost);
                // the hold is marked lost before the listeners hear of it: wait for the indicator's listener
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> Long.valueOf(1).equals(relockHealth(context).getDetails().get("locksLost")));
                Health health = relockHealth(context);
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getDetails()).containsEntry("locksLost", 1L);
                assertThat((Map<String, Object>) health.getDetails().get("lastLockLost")).containsEntry("name", "report:7")
                        .containsEntry("key", lock.getKey()).containsKey("detectedAt");
            }
            finally {
                assertThat(lock.isHeldByCurrentThread()).isFalse();
            }
        });
    }

    @Test
    void canBeTurnedOff() {
        runner.withPropertyValues("management.health.relock.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelockHealthIndicator.class));
    }

    @Test
    void isAbsentWithoutBootHealth() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelockHealthIndicator.class));
    }

    @Test
    void backsOffForTheApplicationsOwn() {
        runner.withBean("relockHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build())
                .run(context -> assertThat(context).getBeans(RelockHealthIndicator.class).isEmpty());
    }

    private static Health relockHealth(AssertableApplicationContext context) {
        return context.getBean(RelockHealthIndicator.class).health(true);
    }

    private static Health redisHealth(AssertableApplicationContext context) {
        HealthContributor contributor = context.getBean("redisHealthContributor", HealthContributor.class);
        return ((HealthIndicator) contributor).health(true);
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
