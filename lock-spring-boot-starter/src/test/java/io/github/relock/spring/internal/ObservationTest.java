package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.OtherInstance;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;

/** Acquisition and hold are observed with the logical lock name and the outcome, never the key value. */
@Timeout(60)
class ObservationTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    @Order(OtherInstance.AFTER_REDIS)
    static final OtherInstance elsewhere = new OtherInstance(redis);

    private final TestObservationRegistry registry = TestObservationRegistry.create();
    private final List<String> allKeyValues = new CopyOnWriteArrayList<>();
    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Shipping.class)
            .withBean(TestObservationRegistry.class, () -> registry).withPropertyValues("relock.wait-time=0s");

    ObservationTest() {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                context.getAllKeyValues().forEach(keyValue -> allKeyValues.add(keyValue.getKey() + "=" + keyValue.getValue()));
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
    }

    @Test
    void anAcquiredLockIsObservedWhileWaitingAndWhileHeld() {
        runner.run(context -> {
            context.getBean(Shipping.class).ship("secret-42");
            TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("relock.lock.acquire").that()
                    .hasLowCardinalityKeyValue("relock.lock.name", "shipping")
                    .hasLowCardinalityKeyValue("relock.lock.outcome", "acquired").hasBeenStopped();
            TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("relock.lock.hold").that()
                    .hasLowCardinalityKeyValue("relock.lock.name", "shipping").hasBeenStopped();
            assertThat(allKeyValues).noneMatch(keyValue -> keyValue.contains("secret-42"));
        });
    }

    @Test
    void aBusyLockIsObservedAsNotAcquired() throws Exception {
        ReentrantDistributedLock busy = elsewhere.getLock("shipping:secret-43");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.run(context -> {
                assertThatThrownBy(() -> context.getBean(Shipping.class).ship("secret-43"))
                        .isInstanceOf(LockNotAcquiredException.class);
                TestObservationRegistryAssert.assertThat(registry)
                        .hasObservationWithNameEqualTo("relock.lock.acquire").that()
                        .hasLowCardinalityKeyValue("relock.lock.outcome", "not_acquired");
                TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsWithNameEqualTo("relock.lock.hold", 0);
                assertThat(allKeyValues).noneMatch(keyValue -> keyValue.contains("secret-43"));
            });
        }
        finally {
            busy.unlock();
        }
    }

    @Test
    void aFailingMethodMarksTheHoldWithItsError() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.getBean(Shipping.class).fail("x")).hasMessage("broken");
            TestObservationRegistryAssert.assertThat(registry).hasObservationWithNameEqualTo("relock.lock.hold").that()
                    .hasError();
        });
    }

    public static class Shipping {

        @DistributedLock(name = "shipping", key = "#id")
        public void ship(String id) {
        }

        @DistributedLock(name = "shipping", key = "#id")
        public void fail(String id) {
            throw new IllegalStateException("broken");
        }
    }
}
