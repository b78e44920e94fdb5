package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import io.github.relock.core.DistributedLockException;
import io.github.relock.core.HeldLock;
import io.github.relock.core.LockNames;
import io.github.relock.core.LockRedisKeys;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockKeyException;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.OtherInstance;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/** The aspect on a real Redis: keys, re-entry, multi-key ordering and what happens when a lock is busy. */
@Timeout(60)
class DistributedLockAspectTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Another application instance, holding locks the context under test must wait for. */
    @RegisterExtension
    @org.junit.jupiter.api.Order(OtherInstance.AFTER_REDIS)
    static final OtherInstance elsewhere = new OtherInstance(redis);

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withUserConfiguration(Beans.class)
            .withPropertyValues("relock.wait-time=10s");

    @Test
    void nestedCallsOnTheSameKeyReenterAcrossBeansAndReleaseWhenTheOuterCallReturns() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            List<Integer> holdCounts = orders.outer("42");
            assertThat(holdCounts).containsExactly(2, 1); // inside the inner call, then back in the outer one
            assertThat(redis.commands().exists(RelockContexts.redisKeys(context, "order:42").lock())).isZero();
        });
    }

    @Test
    void nestedCallsOnDifferentKeysTakeBothLocks() {
        runner.run(context -> {
            List<String> held = context.getBean(Orders.class).outerWithOtherKey("1", "2");
            assertThat(held).containsExactlyInAnyOrder("order:1", "order:2");
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void aBusyLockFailsTheCallAfterTheWaitTimeWithoutRunningTheMethod() throws Exception {
        ReentrantDistributedLock busy = elsewhere.getLock("order:7");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.withPropertyValues("relock.wait-time=200ms").run(context -> {
                Orders orders = context.getBean(Orders.class);
                assertThatThrownBy(() -> orders.inner("7")).isInstanceOfSatisfying(LockNotAcquiredException.class, ex -> {
                    assertThat(ex.getLockName()).isEqualTo("order:7");
                    assertThat(ex.getLockKey()).isEqualTo(busy.getKey());
                    assertThat(ex).isInstanceOf(DistributedLockException.class);
                    assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(200));
                    assertThat(ex.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
                    assertThat(ex).hasMessageContaining(busy.getKey()).hasMessageContaining("within 200ms");
                });
                assertThat(orders.innerRuns()).isZero();
            });
        }
        finally {
            busy.unlock();
        }
    }

    @Test
    void theDefaultLockNameIsTheQualifiedClassAndMethod() {
        runner.run(context -> assertThat(context.getBean(Keys.class).byName("abc"))
                .isEqualTo(Keys.class.getName() + ".byName:abc"));
    }

    @Test
    void keysSeeArgumentsByNameAndPositionTheRootObjectAndBeans() {
        runner.run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThat(keys.byPosition("x", "y")).isEqualTo("k:y");
            assertThat(keys.byAlias("x", "y")).isEqualTo("k:x");
            assertThat(keys.byRoot(3)).isEqualTo("k:byRoot-3-acme");
            assertThat(keys.byBean()).isEqualTo("k:tenant-7");
            assertThat(keys.withoutKey()).isEqualTo("whole-method");
        });
    }

    @Test
    void aNullOrBlankKeyFailsTheCallWithoutRunningTheMethod() {
        runner.run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThatThrownBy(() -> keys.nullable(null)).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("'#order?.id'").hasMessageContaining("evaluated to null")
                    .hasMessageContaining("Keys.nullable").hasMessageContaining("not run");
            assertThatThrownBy(() -> keys.nullable(new Order(" "))).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("blank");
            assertThatThrownBy(() -> keys.unsafe(null)).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("could not be evaluated");
            assertThat(keys.runs()).isZero();
            assertThat(keys.nullable(new Order("9"))).isEqualTo("k:9");
            String keyPrefix = context.getBean(RedisLockClient.class).getKeyPrefix();
            assertThat(redis.commands().keys(keyPrefix + "*null*")).isEmpty();
        });
    }

    @Test
    void severalKeysAreAllHeldDuringTheCallInNameOrder() {
        runner.run(context -> assertThat(context.getBean(Transfers.class).transfer("b", "a"))
                .containsExactly("transfer:a", "transfer:b"));
    }

    @Test
    void severalKeysAreTakenInSortedOrderNotArgumentOrder() throws Exception {
        // "transfer:a" is busy; in argument order "transfer:b" would be taken first, and get a fencing token
        ReentrantDistributedLock busy = elsewhere.getLock("transfer:a");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.withPropertyValues("relock.wait-time=100ms").run(context -> {
                assertThatThrownBy(() -> context.getBean(Transfers.class).transfer("b", "a"))
                        .isInstanceOf(LockNotAcquiredException.class).hasMessageContaining(busy.getKey());
                LockRedisKeys notTaken = RelockContexts.redisKeys(context, "transfer:b");
                assertThat(redis.commands().exists(notTaken.lock(), notTaken.fence())).isZero();
            });
        }
        finally {
            busy.unlock();
        }
    }

    @Test
    void severalKeysAreAllOrNothing() throws Exception {
        ReentrantDistributedLock busy = elsewhere.getLock("transfer:z");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.withPropertyValues("relock.wait-time=100ms").run(context -> {
                Transfers transfers = context.getBean(Transfers.class);
                assertThatThrownBy(() -> transfers.transfer("a", "z")).isInstanceOf(LockNotAcquiredException.class)
                        .hasMessageContaining(busy.getKey());
                assertThat(redis.commands().exists(RelockContexts.redisKeys(context, "transfer:a").lock()))
                        .as("the lock taken first was given back").isZero();
                assertThat(transfers.runs()).isZero();
            });
        }
        finally {
            busy.unlock();
        }
    }

    @Test
    void opposingMultiKeyCallsDoNotDeadlock() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    calls.add(pool.submit(() -> transfers.slowTransfer("x", "y")));
                    calls.add(pool.submit(() -> transfers.slowTransfer("y", "x")));
                }
                for (Future<?> call : calls) {
                    call.get(30, TimeUnit.SECONDS); // a deadlock would surface as LockNotAcquiredException
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(transfers.runs()).isEqualTo(40);
            assertThat(transfers.overlaps()).isZero();
        });
    }

    @Test
    void anAnnotationOnAnInterfaceMethodApplies() {
        runner.run(context -> assertThat(context.getBean(Greeter.class).greet("ada")).isEqualTo("greet:ada"));
    }

    // --- beans under test ---

    public interface Greeter {

        @DistributedLock(name = "greet", key = "#name")
        String greet(String name);
    }

    public static class PoliteGreeter implements Greeter {

        private final RedisLockClient client;

        public PoliteGreeter(RedisLockClient client) {
            this.client = client;
        }

        @Override
        public String greet(String name) {
            return client.heldLocks().get(0).name();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import({ Orders.class, Inner.class, Keys.class, Transfers.class, PoliteGreeter.class })
    static class Beans {

        @Bean
        Tenant tenant() {
            return new Tenant();
        }
    }

    public static class Tenant {

        public String name() {
            return "tenant-7";
        }
    }

    public record Order(String id) {
    }

    public static class Orders {

        private final Inner inner;
        private final RedisLockClient client;

        public Orders(Inner inner, RedisLockClient client) {
            this.inner = inner;
            this.client = client;
        }

        @DistributedLock(name = "order", key = "#id")
        public List<Integer> outer(String id) {
            int inside = inner.holdCount(id);
            return List.of(inside, client.getLock(LockNames.of("order", id)).getHoldCount());
        }

        @DistributedLock(name = "order", key = "#id")
        public List<String> outerWithOtherKey(String id, String other) {
            return inner.heldNames(other);
        }

        public int inner(String id) {
            return inner.holdCount(id);
        }

        /** Fields of a proxied bean are read through methods: the proxy's own fields are empty. */
        public int innerRuns() {
            return inner.runs();
        }
    }

    public static class Inner {

        private final RedisLockClient client;
        final AtomicInteger runs = new AtomicInteger();

        public Inner(RedisLockClient client) {
            this.client = client;
        }

        public int runs() {
            return runs.get();
        }

        @DistributedLock(name = "order", key = "#p0")
        public int holdCount(String id) {
            runs.incrementAndGet();
            return client.getLock(LockNames.of("order", id)).getHoldCount();
        }

        @DistributedLock(name = "order", key = "#id")
        public List<String> heldNames(String id) {
            return client.heldLocks().stream().map(HeldLock::name).toList();
        }
    }

    public static class Keys {

        private final RedisLockClient client;
        final AtomicInteger runs = new AtomicInteger();

        public Keys(RedisLockClient client) {
            this.client = client;
        }

        public String tenantName() {
            return "acme";
        }

        @DistributedLock(key = "#value")
        public String byName(String value) {
            return held();
        }

        @DistributedLock(name = "k", key = "#p1")
        public String byPosition(String first, String second) {
            return held();
        }

        @DistributedLock(name = "k", key = "#a0")
        public String byAlias(String first, String second) {
            return held();
        }

        @DistributedLock(name = "k", key = "#root.method.name + '-' + #root.args[0] + '-' + #root.target.tenantName()")
        public String byRoot(int number) {
            return held();
        }

        @DistributedLock(name = "k", key = "@tenant.name()")
        public String byBean() {
            return held();
        }

        @DistributedLock(name = "whole-method")
        public String withoutKey() {
            return held();
        }

        @DistributedLock(name = "k", key = "#order?.id")
        public String nullable(Order order) {
            runs.incrementAndGet();
            return held();
        }

        @DistributedLock(name = "k", key = "#order.id")
        public String unsafe(Order order) {
            runs.incrementAndGet();
            return held();
        }

        public int runs() {
            return runs.get();
        }

        private String held() {
            return client.heldLocks().stream().map(HeldLock::name).reduce((a, b) -> a + "," + b).orElseThrow();
        }
    }

    public static class Transfers {

        private final RedisLockClient client;
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        private final AtomicInteger inside = new AtomicInteger();

        public Transfers(RedisLockClient client) {
            this.client = client;
        }

        public int runs() {
            return runs.get();
        }

        public int overlaps() {
            return overlaps.get();
        }

        @DistributedLock(name = "transfer", keys = { "#from", "#to" })
        public List<String> transfer(String from, String to) {
            runs.incrementAndGet();
            return client.heldLocks().stream().map(HeldLock::name).sorted().toList();
        }

        @DistributedLock(name = "transfer", keys = { "#from", "#to" })
        public int slowTransfer(String from, String to) throws InterruptedException {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            Thread.sleep(5);
            inside.decrementAndGet();
            return runs.incrementAndGet();
        }
    }
}
