package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockKeyException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * A key is what makes two calls exclude each other, so it must be the same for the same thing and
 * different for different things: never an object's identity, never shared by two lock names.
 */
@Timeout(60)
class LockKeyTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Keys.class)
            .withBean(Billing.Service.class).withBean(Shipping.Service.class);

    /** An object whose toString() is Object's: {@code Order@75504cef}, different for every instance. */
    public static final class Order {

        private final String id;

        Order(String id) {
            this.id = id;
        }

        public String getId() {
            return id;
        }
    }

    public record Sku(String code) {
    }

    @Test
    void aKeyWithoutItsOwnToStringIsRefusedAndTheMessageSaysWhatToWrite() {
        runner.run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThatThrownBy(() -> keys.byOrder(new Order("42"))).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("'#order'").hasMessageContaining(Order.class.getName())
                    .hasMessageContaining("toString()").hasMessageContaining("#order.id")
                    .hasMessageContaining("the method was not run");
            assertThat(keys.ran()).isNull();
        });
    }

    @Test
    void arraysAndCollectionsOfSuchObjectsAreRefusedToo() {
        runner.run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThatThrownBy(() -> keys.byIds(new long[] {1, 2})).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("array").hasMessageContaining("T(java.util.Arrays).toString(#ids)");
            assertThatThrownBy(() -> keys.byOrders(List.of(new Order("1")))).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining(Order.class.getName());
        });
    }

    @Test
    void valuesWithTheirOwnToStringAreFine() {
        runner.run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThat(keys.bySku(new Sku("A-1"))).isEqualTo(lockKey(context, "sku", "Sku[code=A-1]"));
            assertThat(keys.byOrderId(new Order("42"))).isEqualTo(lockKey(context, "order", "42"));
            assertThat(keys.bySkus(List.of(new Sku("A"), new Sku("B"))))
                    .isEqualTo(lockKey(context, "skus", "[Sku[code=A], Sku[code=B]]"));
        });
    }

    @Test
    void aKeyLongerThanALockNameMayBeIsRefusedWithTheLimit() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(Keys.class).byOrderId(new Order("9".repeat(2000))))
                .isInstanceOf(InvalidLockKeyException.class).hasMessageContaining(
                        String.valueOf(RedisLockClient.MAX_NAME_LENGTH)).hasMessageContaining("the method was not run"));
    }

    /** Two classes with the same simple name, in different places, must not share their default locks. */
    @Test
    void defaultNamesTellSameNamedClassesApart() {
        runner.run(context -> {
            String billing = context.getBean(Billing.Service.class).run("7");
            String shipping = context.getBean(Shipping.Service.class).run("7");
            assertThat(billing).isNotEqualTo(shipping).contains(Billing.Service.class.getName());
        });
    }

    /** The Redis key of the lock named {@code name} with key {@code key}, as the context's client keeps it. */
    private static String lockKey(ApplicationContext context, String name, String key) {
        return RelockContexts.redisKeys(context, LockNames.of(name, key)).lock();
    }

    public static class Keys {

        private final AtomicReference<String> ran = new AtomicReference<>();
        private final RedisLockClient client;

        public String ran() {
            return ran.get();
        }

        public Keys(RedisLockClient client) {
            this.client = client;
        }

        @DistributedLock(name = "order", key = "#order")
        public void byOrder(Order order) {
            ran.set("byOrder");
        }

        @DistributedLock(name = "order", key = "#order.id")
        public String byOrderId(Order order) {
            return heldKey();
        }

        @DistributedLock(name = "ids", key = "#ids")
        public void byIds(long[] ids) {
            ran.set("byIds");
        }

        @DistributedLock(name = "orders", key = "#orders")
        public void byOrders(List<Order> orders) {
            ran.set("byOrders");
        }

        @DistributedLock(name = "sku", key = "#sku")
        public String bySku(Sku sku) {
            return heldKey();
        }

        @DistributedLock(name = "skus", key = "#skus")
        public String bySkus(List<Sku> skus) {
            return heldKey();
        }

        private String heldKey() {
            return client.heldLocks().stream().map(HeldLock::key).findFirst().orElseThrow();
        }
    }

    static final class Billing {

        public static class Service {

            private final RedisLockClient client;

            public Service(RedisLockClient client) {
                this.client = client;
            }

            @DistributedLock(key = "#id")
            public String run(String id) {
                return client.heldLocks().get(0).name();
            }
        }
    }

    static final class Shipping {

        public static class Service {

            private final RedisLockClient client;

            public Service(RedisLockClient client) {
                this.client = client;
            }

            @DistributedLock(key = "#id")
            public String run(String id) {
                return client.heldLocks().get(0).name();
            }
        }
    }
}
