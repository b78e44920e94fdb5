package io.github.relock.spring.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.HeldLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockKeyException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * Key values that look harmless but would make two calls on one thing take different locks, or all calls
 * on nothing share one: each must either name the thing or fail the call before the method runs.
 */
@Timeout(60)
@Tag("jdk-independent")
class KeyValuesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Orders.class);

    @Test
    @Timeout(20)
    void anEmptyOptionalIsRefusedLikeNull() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.byMaybeId(Optional.empty())).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("'#id'").hasMessageContaining("the method was not run");
            assertThat(orders.runs()).isZero();
        });
    }

    /** {@code Optional.of(42)} and {@code 42} are the same order: both calls must take one lock. */
    @Test
    @Timeout(20)
    void aPresentOptionalLocksWhatItHolds() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.byMaybeId(Optional.of(42L))).isEqualTo(orders.byId(42L)).isEqualTo("order:42");
        });
    }

    @Test
    @Timeout(20)
    void oddCharactersNameTheirOwnLocks() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            String odd = orders.byText("a}b{c:d%7D");
            assertThat(odd).as("one Redis key, one hash tag").endsWith("{order:a%7Db{c:d%257D}");
            assertThat(orders.byText("%7D")).as("Redis keys").isNotEqualTo(orders.byText("}"));
            assertThat(orders.byText("ü🙂")).endsWith("{order:ü🙂}");
            assertThatThrownBy(() -> orders.byText("\t \n")).isInstanceOf(InvalidLockKeyException.class);
            assertThatThrownBy(() -> orders.byText(null)).isInstanceOf(InvalidLockKeyException.class);
            assertThat(orders.runs()).isEqualTo(4);
        });
    }

    public static class Orders {

        private final AtomicInteger runs = new AtomicInteger();
        private final RedisLockClient client;

        public int runs() {
            return runs.get();
        }

        public Orders(RedisLockClient client) {
            this.client = client;
        }

        @DistributedLock(name = "order", key = "#id")
        public String byMaybeId(Optional<Long> id) {
            return held();
        }

        @DistributedLock(name = "order", key = "#id")
        public String byId(long id) {
            return held();
        }

        @DistributedLock(name = "order", key = "#text")
        public String byText(String text) {
            runs.incrementAndGet();
            return client.heldLocks().stream().map(HeldLock::key).findFirst().orElseThrow();
        }

        private String held() {
            runs.incrementAndGet();
            return client.heldLocks().stream().map(HeldLock::name).findFirst().orElseThrow();
        }
    }
}
