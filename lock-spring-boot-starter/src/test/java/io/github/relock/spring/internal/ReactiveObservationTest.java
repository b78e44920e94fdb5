package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
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
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import reactor.core.publisher.Mono;

/** A reactive call's acquisition and hold are observed like a synchronous call's. */
@Timeout(60)
class ReactiveObservationTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    @Order(OtherInstance.AFTER_REDIS)
    static final OtherInstance elsewhere = new OtherInstance(redis);

    private final TestObservationRegistry registry = TestObservationRegistry.create();
    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Shipping.class)
            .withBean(TestObservationRegistry.class, () -> registry).withPropertyValues("relock.wait-time=0s");

    @Test
    void aMonoCallIsObservedWhileWaitingAndWhileHeld() {
        runner.run(context -> {
            Mono<String> call = context.getBean(Shipping.class).ship("1");
            TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyObservation();
            assertThat(call.block(Duration.ofSeconds(5))).isEqualTo("1");
            TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("relock.lock.acquire").that()
                    .hasLowCardinalityKeyValue("relock.lock.name", "rx-shipping")
                    .hasLowCardinalityKeyValue("relock.lock.outcome", "acquired").hasBeenStopped();
            TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("relock.lock.hold").that()
                    .hasLowCardinalityKeyValue("relock.lock.name", "rx-shipping").hasBeenStopped();
        });
    }

    @Test
    void aBusyLockIsObservedAsNotAcquired() throws Exception {
        ReentrantDistributedLock busy = elsewhere.getLock("rx-shipping:2");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.run(context -> {
                assertThatThrownBy(() -> context.getBean(Shipping.class).ship("2").block(Duration.ofSeconds(5)))
                        .isInstanceOf(LockNotAcquiredException.class);
                TestObservationRegistryAssert.assertThat(registry)
                        .hasObservationWithNameEqualTo("relock.lock.acquire").that()
                        .hasLowCardinalityKeyValue("relock.lock.outcome", "not_acquired");
                TestObservationRegistryAssert.assertThat(registry)
                        .hasNumberOfObservationsWithNameEqualTo("relock.lock.hold", 0);
            });
        }
        finally {
            busy.unlock();
        }
    }

    @Test
    void aFailingMonoMarksTheHoldWithItsError() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.getBean(Shipping.class).fail("3").block(Duration.ofSeconds(5)))
                    .hasMessage("broken");
            TestObservationRegistryAssert.assertThat(registry).hasObservationWithNameEqualTo("relock.lock.hold")
                    .that().hasError().hasBeenStopped();
        });
    }

    public static class Shipping {

        @DistributedLock(name = "rx-shipping", key = "#id")
        public Mono<String> ship(String id) {
            return Mono.just(id);
        }

        @DistributedLock(name = "rx-shipping", key = "#id")
        public Mono<String> fail(String id) {
            return Mono.error(new IllegalStateException("broken"));
        }
    }
}
