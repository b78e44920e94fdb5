package io.github.relock.spring.kinds;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Supplier;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockMode;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * A deployment rolling out a change of {@code mode} on one lock name (EXCLUSIVE on the old version, WRITE on the
 * new one): the two instances must not both get in.
 */
@Timeout(60)
class ModesOfOneNameExcludeEachOtherTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withPropertyValues("relock.wait-time=0s");

    @Test
    @Disabled("an exclusive and a read-write lock of one name keep apart keys and never see each other")
    void anExclusiveAndAWriteHoldOfOneNameDoNotBothGetIn() {
        runner.withBean(OldVersion.class).run(oldInstance -> runner.withBean(NewVersion.class).run(newInstance -> {
            OldVersion old = oldInstance.getBean(OldVersion.class);
            NewVersion updated = newInstance.getBean(NewVersion.class);
            assertThatThrownBy(() -> old.reindex("r1", () -> updated.reindex("r1", () -> "both in")))
                    .isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> updated.reindex("r2", () -> old.reindex("r2", () -> "both in")))
                    .isInstanceOf(RuntimeException.class);
        }));
    }

    public static class OldVersion {

        @DistributedLock(name = "reindex", key = "#id")
        public <T> T reindex(String id, Supplier<T> inside) {
            return inside.get();
        }
    }

    public static class NewVersion {

        @DistributedLock(name = "reindex", key = "#id", mode = LockMode.WRITE)
        public <T> T reindex(String id, Supplier<T> inside) {
            return inside.get();
        }
    }
}
