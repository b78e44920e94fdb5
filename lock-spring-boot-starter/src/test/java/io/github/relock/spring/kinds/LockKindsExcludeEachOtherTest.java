package io.github.relock.spring.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Supplier;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.LockKindMismatchException;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * Two instances that disagree on {@code fair} for one lock name never both get in, however long the first hold
 * lasts: a hold the watchdog keeps alive past the fencing counter's retention still keeps the other kind out.
 */
@Timeout(60)
@Tag("jdk-independent")
class LockKindsExcludeEachOtherTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** The shortest retention allowed, so that a hold outlives its fencing counter within a test. */
    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Jobs.class)
            .withPropertyValues("relock.fencing-token-retention=1s", "relock.wait-time=0s");

    @Test
    void aPlainHoldOutlivingItsFencingCounterStillKeepsTheFairKindOut() {
        runner.run(plainInstance -> runner.withPropertyValues("relock.locks.nightly.fair=true").run(fairInstance -> {
            Jobs plain = plainInstance.getBean(Jobs.class);
            Jobs fair = fairInstance.getBean(Jobs.class);
            assertThatThrownBy(() -> plain.nightly("n1", () -> {
                pause(2_500); // the watchdog renews the hold; the counter, untouched, expires after 1 s
                return fair.nightly("n1", () -> "both in");
            })).isInstanceOf(LockKindMismatchException.class);
            assertThat(fair.nightly("n1", () -> "alone")).isEqualTo("alone");
        }));
    }

    @Test
    void aFairHoldOutlivingItsFencingCounterStillKeepsThePlainKindOut() {
        runner.run(plainInstance -> runner.withPropertyValues("relock.locks.nightly.fair=true").run(fairInstance -> {
            Jobs plain = plainInstance.getBean(Jobs.class);
            Jobs fair = fairInstance.getBean(Jobs.class);
            assertThatThrownBy(() -> fair.nightly("n2", () -> {
                pause(2_500);
                return plain.nightly("n2", () -> "both in");
            })).isInstanceOf(LockKindMismatchException.class);
            assertThat(plain.nightly("n2", () -> "alone")).isEqualTo("alone");
        }));
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    public static class Jobs {

        @DistributedLock(name = "nightly", key = "#day")
        public <T> T nightly(String day, Supplier<T> inside) {
            return inside.get();
        }
    }
}
