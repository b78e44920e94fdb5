package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.LockLostException;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.test.RedisServerExtension;

/** {@code @DistributedLock(maxHold = ...)}: the same formats as the other durations, and it wins over the properties. */
@Timeout(60)
class MaxHoldAttributeTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @Test
    void theAnnotationsMaxHoldWinsOverTheProperties() {
        runner.withBean(Capped.class).withPropertyValues("relock.locks.capped.max-hold=1h", "relock.max-hold=2h",
                "capped.max=750ms").run(context -> {
                    LockDefinitionRegistry registry = context.getBean(LockDefinitionRegistry.class);
                    assertThat(registry.get(Capped.class.getMethod("run", String.class, long.class), Capped.class)
                            .settings().maxHold()).isEqualTo(Duration.ofMillis(400));
                    assertThat(registry.get(Capped.class.getMethod("resolved", String.class), Capped.class)
                            .settings().maxHold()).isEqualTo(Duration.ofMillis(750));
                    assertThat(registry.get(Capped.class.getMethod("configured", String.class), Capped.class)
                            .settings().maxHold()).isEqualTo(Duration.ofHours(1));
                });
    }

    @Test
    void aCallHeldPastTheAnnotationsMaxHoldLosesTheLockAndIsTold() {
        runner.withBean(Capped.class).withPropertyValues("relock.watchdog-timeout=600ms",
                "relock.locks.capped.max-hold=1h").run(context -> assertThatThrownBy(
                        () -> context.getBean(Capped.class).run("1", 1_200)).isInstanceOf(LockLostException.class));
    }

    @Test
    void aMalformedMaxHoldStopsStartup() {
        runner.withBean("culprit", Malformed.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("maxHold 'soon'").contains("is not a duration");
        });
    }

    @Test
    void anOutOfRangeMaxHoldStopsStartup() {
        runner.withBean("culprit", Zero.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("maxHold '0s' is not between 1ms and 365 days");
        });
    }

    public static class Capped {

        @DistributedLock(name = "capped", key = "#id", maxHold = "400ms")
        public String run(String id, long millis) throws InterruptedException {
            Thread.sleep(millis);
            return id;
        }

        @DistributedLock(name = "capped", key = "#id", maxHold = "${capped.max:5s}")
        public String resolved(String id) {
            return id;
        }

        @DistributedLock(name = "capped", key = "#id")
        public String configured(String id) {
            return id;
        }
    }

    public static class Malformed {

        @DistributedLock(name = "malformed", key = "#id", maxHold = "soon")
        public String run(String id) {
            return id;
        }
    }

    public static class Zero {

        @DistributedLock(name = "zero", key = "#id", maxHold = "0s")
        public String run(String id) {
            return id;
        }
    }
}
