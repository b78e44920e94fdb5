package io.github.relock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

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
        assertThat(registry.get(MeterLockObserver.HELD).gauge().value()).isEqualTo(2);

        first.leave(List.of("payments"));
        assertThat(registry.getMeters()).hasSize(4);
        second.leave(List.of("payments"));
        assertThat(registry.getMeters()).isEmpty();
        assertThat(RegistryMeters.join(registry)).as("a fresh start after the last one left").isNotSameAs(first);
    }
}
