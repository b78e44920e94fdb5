package io.github.relock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.HeldLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.actuate.RelockEndpoint.HeldLockDescriptor;
import io.github.relock.spring.actuate.RelockEndpoint.HeldLocksDescriptor;
import io.github.relock.test.RedisServerExtension;

/** /actuator/relock lists what this instance holds, when actuator is present and the endpoint exposed. */
@Timeout(60)
class RelockEndpointTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis)
            .withConfiguration(AutoConfigurations.of(RelockEndpointAutoConfiguration.class));

    @Test
    void listsTheLocksHeldByThisInstance() {
        runner.withBean(Reports.class)
                .withPropertyValues("management.endpoints.web.exposure.include=relock", "relock.client-id=node-1")
                .run(context -> {
                    Reports.Seen seen = context.getBean(Reports.class).build("2024-q1");
                    HeldLocksDescriptor inside = seen.endpoint();
                    HeldLock held = seen.client().get(0);
                    assertThat(inside.clientId()).startsWith("node-1-");
                    assertThat(inside.keyPrefix()).isEqualTo("lock:");
                    HeldLockDescriptor lock = inside.locks().get(0);
                    assertThat(lock.name()).isEqualTo("report:2024-q1");
                    assertThat(lock.key()).isEqualTo(RelockContexts.redisKeys(context, "report:2024-q1").lock());
                    assertThat(lock.holdCount()).isOne();
                    assertThat(lock.fencingToken()).isPositive();
                    assertThat(lock.remainingLeaseMillis()).isPositive();
                    assertThat(lock.ownerThread()).isEqualTo(Thread.currentThread().getName());
                    assertThat(lock.ownerId()).isEqualTo(held.ownerId());
                    assertThat(lock.watchdog()).isTrue();
                    assertThat(context.getBean(RelockEndpoint.class).heldLocks().locks()).isEmpty();
                });
    }

    @Test
    void isAbsentUnlessExposed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(RelockEndpoint.class));
    }

    @Test
    void isAbsentWithoutActuator() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=relock")
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelockEndpoint.class));
    }

    public static class Reports {

        /** What the endpoint and the client itself list while the lock is held. */
        public record Seen(HeldLocksDescriptor endpoint, List<HeldLock> client) {
        }

        private final RelockEndpoint endpoint;
        private final RedisLockClient client;

        public Reports(RelockEndpoint endpoint, RedisLockClient client) {
            this.endpoint = endpoint;
            this.client = client;
        }

        @DistributedLock(name = "report", key = "#quarter")
        public Seen build(String quarter) {
            return new Seen(endpoint.heldLocks(), client.heldLocks());
        }
    }
}
