package io.github.relock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** How observers share one registry's meters: each name's meters go with its last user. */
class RegistryMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void aCallNamedLikeTheLossesOnlyNameGetsAllItsMetersAndLosesNone() {
        RegistryMeters first = RegistryMeters.join(registry);
        RegistryMeters.NameMeters lossesOnly = first.use(MeterLockObserver.OTHER_NAME, true);
        assertThat(lossesOnly.notAcquired).isNull();
        assertThat(registry.getMeters()).hasSize(1);

        RegistryMeters.NameMeters asCall = first.use(MeterLockObserver.OTHER_NAME, false);
        assertThat(asCall.notAcquired).isNotNull();
        assertThat(asCall.lost).isSameAs(lossesOnly.lost);
        assertThat(registry.getMeters()).hasSize(4);

        first.leave(List.of(MeterLockObserver.OTHER_NAME, MeterLockObserver.OTHER_NAME));
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void aNameStaysWhileAnotherObserverStillUsesIt() {
        RegistryMeters first = RegistryMeters.join(registry);
        RegistryMeters second = RegistryMeters.join(registry);
        assertThat(second).isSameAs(first);
        first.use("payments", false).held.incrementAndGet();
        second.use("payments", false).held.incrementAndGet();
        assertThat(registry.get(MeterLockObserver.HOLDING).gauge().value()).isEqualTo(2);

        first.leave(List.of("payments"));
        assertThat(registry.getMeters()).hasSize(4);
        second.leave(List.of("payments"));
        assertThat(registry.getMeters()).isEmpty();
        assertThat(RegistryMeters.join(registry)).as("a fresh start after the last one left").isNotSameAs(first);
    }

    /** A second close takes no other observer's place, and a late call registers nothing again. */
    @Test
    void closingAnObserverTwiceOrCallingItAfterwardsLeavesTheOthersCounting() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            LettuceConnectionFactory factory = server.newConnectionFactory();
            RedisLockClient client = RedisLockClient.builder(factory).build();
            try {
                MeterLockObserver first = new MeterLockObserver(registry, client);
                MeterLockObserver second = new MeterLockObserver(registry, client);
                first.acquisitionStarted("payments").acquired();
                second.acquisitionStarted("payments").acquired();
                first.close();
                first.close();
                first.acquisitionStarted("late").acquired();
                MeterLockObserver third = new MeterLockObserver(registry, client);
                third.acquisitionStarted("payments").acquired();
                assertThat(registry.get(MeterLockObserver.HOLDING).tag(MeterLockObserver.NAME_TAG, "payments").gauge()
                        .value()).as("second's and third's holds, in one gauge").isEqualTo(3);
                assertThat(registry.find(MeterLockObserver.HOLDING).tag(MeterLockObserver.NAME_TAG, "late").gauge())
                        .isNull();
                second.close();
                assertThat(registry.find(MeterLockObserver.HOLDING).gauge()).as("third still counts").isNotNull();
                third.close();
                assertThat(registry.getMeters()).isEmpty();
            }
            finally {
                client.close();
                factory.destroy();
            }
        }
    }
}
