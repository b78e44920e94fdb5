package io.github.relock.spring.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockKeyException;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * Keys whose evaluation throws, a key that holds itself, a stranger thread that calls in while the lock is
 * held, and a real stack overflow under re-entry: fail before the method runs, never re-enter for a
 * stranger, leave nothing held.
 */
@Timeout(60)
@Tag("jdk-independent")
class KeysThatThrowTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Service.class)
            .withPropertyValues("relock.wait-time=0s");

    /** An order whose identifying getter fails, as a lazy-loading proxy's might. */
    public static final class Broken {

        public String code() {
            throw new IllegalStateException("no session");
        }

        @Override
        public String toString() {
            throw new UnsupportedOperationException("no text");
        }
    }

    @Test
    @Timeout(20)
    void aKeyWhoseEvaluationThrowsFailsTheCallWithInvalidLockKeyException() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            assertThatThrownBy(() -> service.byCode(new Broken())).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("'#order.code()'").hasMessageContaining("no session")
                    .hasMessageContaining("the method was not run").hasRootCauseMessage("no session");
            assertThatThrownBy(() -> service.byOrder(new Broken())).isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("'#order'").hasMessageContaining("no text")
                    .hasMessageContaining("the method was not run");
            assertThat(service.runs()).isZero();
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    @Timeout(20)
    void aCollectionThatHoldsItselfFailsTheCallWithoutOverflowingTheStack() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            List<Object> itself = new ArrayList<>();
            itself.add("a");
            itself.add(itself);
            assertThat(service.byItems(itself)).as("its text names it: [a, (this Collection)]").isOne();
        });
    }

    @Test
    @Timeout(20)
    void anotherThreadNeverReentersTheLockOfTheThreadThatHoldsIt() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            assertThat(service.callFromAnotherThread("x")).isInstanceOf(LockNotAcquiredException.class);
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    @Timeout(20)
    void aRealStackOverflowUnderReentryLeavesNothingHeld() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            assertThatThrownBy(() -> service.recurse("deep", 0)).isInstanceOf(StackOverflowError.class);
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).as("holds left").isEmpty();
            assertThat(service.recurse("deep", Integer.MIN_VALUE)).as("free again").isEqualTo(Integer.MIN_VALUE);
        });
    }

    public static class Service {

        private final AtomicInteger runs = new AtomicInteger();

        @Autowired
        @Lazy
        Service self;

        public int runs() {
            return runs.get();
        }

        @DistributedLock(name = "order", key = "#order.code()")
        public void byCode(Broken order) {
            runs.incrementAndGet();
        }

        @DistributedLock(name = "order", key = "#order")
        public void byOrder(Broken order) {
            runs.incrementAndGet();
        }

        @DistributedLock(name = "items", key = "#items")
        public int byItems(List<Object> items) {
            return runs.incrementAndGet();
        }

        @DistributedLock(name = "order", key = "#id")
        public Throwable callFromAnotherThread(String id) throws Exception {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    self.plain(id);
                    return null;
                }
                catch (Throwable ex) {
                    return ex;
                }
            }).get(10, TimeUnit.SECONDS);
        }

        @DistributedLock(name = "order", key = "#id")
        public void plain(String id) {
            runs.incrementAndGet();
        }

        @DistributedLock(name = "order", key = "#id")
        public int recurse(String id, int depth) {
            return depth == Integer.MIN_VALUE ? depth : self.recurse(id, depth + 1);
        }
    }
}
