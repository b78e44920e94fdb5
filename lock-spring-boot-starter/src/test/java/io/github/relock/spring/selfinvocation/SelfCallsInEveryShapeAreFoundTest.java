package io.github.relock.spring.selfinvocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * With {@code relock.self-invocation=fail}, startup refuses a bean that calls its own {@code @DistributedLock}
 * method on itself, whatever the shape of the call: such a call skips the proxy and runs without the lock.
 */
@Timeout(60)
class SelfCallsInEveryShapeAreFoundTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis)
            .withPropertyValues("relock.self-invocation=fail");

    @Test
    void aMethodReferenceOnThisStopsStartup() {
        runner.withBean("payments", ByMethodReference.class).run(context -> assertThat(context).hasFailed());
    }

    @Test
    void aBoundMethodReferenceHeldInAFieldStopsStartup() {
        runner.withBean("payments", ByStoredMethodReference.class).run(context -> assertThat(context).hasFailed());
    }

    @Test
    @Disabled("the detector reads only the bean class and its superclasses, not an inner class calling Outer.this.pay")
    void anAnonymousClassCallingTheOuterBeanStopsStartup() {
        runner.withBean("payments", ByAnonymousClass.class).run(context -> assertThat(context).hasFailed());
    }

    @Test
    void aDefaultMethodCallingTheBeansLockedMethodStopsStartup() {
        runner.withBean("payments", ByDefaultMethod.class).run(context -> assertThat(context).hasFailed());
    }

    @Test
    @Disabled("the detector knows only local 0 as this: a copy of this in another local variable is not followed")
    void thisKeptInALocalVariableStopsStartup() {
        runner.withBean("payments", ByLocalAlias.class).run(context -> assertThat(context).hasFailed());
    }

    @Test
    void aMethodReferenceOnAnotherObjectStartsNormally() {
        runner.withBean("payments", ByOtherReference.class).run(context -> assertThat(context).hasNotFailed());
    }

    public static class ByMethodReference {

        public void payAll(List<String> ids) {
            ids.forEach(this::pay);
        }

        @DistributedLock(name = "payments", key = "#id")
        public void pay(String id) {
        }
    }

    public static class ByStoredMethodReference {

        private final Consumer<String> payer = this::pay;

        public void payAll(List<String> ids) {
            ids.forEach(payer);
        }

        @DistributedLock(name = "payments", key = "#id")
        public void pay(String id) {
        }
    }

    public static class ByAnonymousClass {

        public Runnable payLater(String id) {
            return new Runnable() {
                @Override
                public void run() {
                    pay(id);
                }
            };
        }

        @DistributedLock(name = "payments", key = "#id")
        public void pay(String id) {
        }
    }

    public interface Payer {

        void pay(String id);

        default void payAll(List<String> ids) {
            for (String id : ids) {
                pay(id);
            }
        }
    }

    public static class ByDefaultMethod implements Payer {

        @Override
        @DistributedLock(name = "payments", key = "#id")
        public void pay(String id) {
        }
    }

    public static class ByLocalAlias {

        public void payAll(List<String> ids) {
            ByLocalAlias me = this;
            for (String id : ids) {
                me.pay(id);
            }
        }

        @DistributedLock(name = "payments", key = "#id")
        public void pay(String id) {
        }
    }

    public static class ByOtherReference {

        public void payAll(List<String> ids, ByOtherReference other) {
            ids.forEach(other::pay);
        }

        @DistributedLock(name = "payments", key = "#id")
        public void pay(String id) {
        }
    }
}
