package io.github.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import io.github.relock.core.HeldLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link CurrentLock} shows the running {@code @DistributedLock} call's hold, on a thread and in a Reactor chain,
 * against a real redis-server; outside a call it refuses.
 */
@Timeout(60)
class CurrentLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Orders.class)
            .withBean(Ledger.class).withPropertyValues("relock.wait-time=5s");

    @Test
    void getShowsTheHoldOfTheCallRunningOnThisThread() {
        runner.run(context -> {
            HeldLock held = context.getBean(Orders.class).plain("42");
            RedisLockClient client = context.getBean(RedisLockClient.class);
            assertThat(held.name()).isEqualTo("orders:42");
            assertThat(held.key()).isEqualTo(client.redisKeys("orders:42").lock());
            assertThat(held.holdCount()).isOne();
            assertThat(held.fencingToken()).isPositive();
            assertThat(held.ownerThread()).isEqualTo(Thread.currentThread().getName());
        });
    }

    @Test
    void eachHoldHasItsOwnTokenAndTokensGrow() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            long first = orders.plain("7").fencingToken();
            long second = orders.plain("7").fencingToken();
            assertThat(second).isGreaterThan(first);
        });
    }

    @Test
    void aNestedCallOnTheSameKeySeesTheSameHoldAndToken() {
        runner.run(context -> {
            List<HeldLock> seen = context.getBean(Orders.class).nestedSameKey("9");
            HeldLock outer = seen.get(0);
            HeldLock inner = seen.get(1);
            HeldLock outerAgain = seen.get(2);
            assertThat(inner.name()).isEqualTo(outer.name());
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            assertThat(outer.holdCount()).isOne();
            assertThat(inner.holdCount()).isEqualTo(2);
            assertThat(outerAgain.holdCount()).as("after the nested call returned").isOne();
        });
    }

    @Test
    void aNestedCallOnAnotherLockIsTheInnermostUntilItReturns() {
        runner.run(context -> {
            List<HeldLock> seen = context.getBean(Orders.class).nestedOtherLock("3");
            assertThat(seen).extracting(HeldLock::name).containsExactly("orders:3", "ledger:3", "orders:3");
            assertThat(seen.get(1).fencingToken()).isPositive();
        });
    }

    @Test
    void aMultiKeyCallPicksOneHoldByKeyOrLockName() {
        runner.run(context -> {
            List<HeldLock> seen = context.getBean(Orders.class).transfer("a", "b");
            assertThat(seen).extracting(HeldLock::name).containsExactly("transfer:a", "transfer:b", "transfer:b");
            assertThat(seen.get(0).fencingToken()).isPositive();
            assertThat(seen.get(1).fencingToken()).isPositive();
        });
    }

    @Test
    void getOnAMultiKeyCallRefusesAndSaysToPassAKey() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(Orders.class).transferAskingGet("a", "b"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds 2 locks [transfer:a, transfer:b]")
                .hasMessageContaining("CurrentLock.get(key)"));
    }

    @Test
    void getWithAKeyTheCallDoesNotHoldRefusesNamingWhatItHolds() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(Orders.class).transferAskingKey("a", "b", "c"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no lock for key 'c'")
                .hasMessageContaining("[transfer:a, transfer:b]"));
    }

    @Test
    void outsideACallGetAndAssertHeldRefuse() {
        assertThatThrownBy(CurrentLock::get).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CurrentLock.get() was called outside any @DistributedLock call")
                .hasMessageContaining("CurrentLock.mono()");
        assertThatThrownBy(() -> CurrentLock.get("1")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside any @DistributedLock call");
        assertThatThrownBy(CurrentLock::assertHeld).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CurrentLock.assertHeld() was called outside any @DistributedLock call");
        runner.run(context -> {
            context.getBean(Orders.class).plain("after");
            assertThatThrownBy(CurrentLock::get).as("once the call returned").isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> context.getBean(Orders.class).unlockedAsserting())
                    .as("an unannotated method of a locked bean").isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void assertHeldPassesInsideACall() {
        runner.run(context -> assertThat(context.getBean(Orders.class).asserting("5")).isEqualTo("ran locked"));
    }

    @Test
    void assertHeldFailsOnceTheCallsLeaseHasRunOut() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(Orders.class).outlivingItsLease("6"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no longer holds [orders:6]"));
    }

    @Test
    void theBodyOfACompletionStageMethodSeesItsHoldWhileItRunsOnTheCallingThread() {
        runner.run(context -> {
            HeldLock held = context.getBean(Orders.class).async("11").join();
            assertThat(held.name()).isEqualTo("orders:11");
            assertThat(held.ownerThread()).as("owned by the future, not the thread").isNull();
        });
    }

    @Test
    void monoReadsTheHoldFromTheReactorContext() {
        runner.run(context -> {
            List<HeldLock> seen = context.getBean(Orders.class).reactiveNested("12").block(Duration.ofSeconds(10));
            assertThat(seen).extracting(HeldLock::name).containsExactly("orders:12", "orders:12");
            assertThat(seen.get(1).fencingToken()).isEqualTo(seen.get(0).fencingToken());
            assertThat(seen.get(0).holdCount()).isOne();
            assertThat(seen.get(1).holdCount()).as("the nested Mono re-entered").isEqualTo(2);
        });
    }

    @Test
    void fluxBodiesReadTheHoldOnAnyThread() {
        runner.run(context -> {
            List<Long> tokens = context.getBean(Orders.class).reactiveFlux("13", 3).collectList()
                    .block(Duration.ofSeconds(10));
            assertThat(tokens).hasSize(3).allSatisfy(token -> assertThat(token).isEqualTo(tokens.get(0)).isPositive());
        });
    }

    @Test
    void monoOutsideAReactiveCallFails() {
        assertThatThrownBy(() -> CurrentLock.mono().block(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CurrentLock.mono() was subscribed outside any reactive @DistributedLock call");
        runner.run(context -> assertThatThrownBy(() -> context.getBean(Orders.class).monoOnAThread("14"))
                .as("a plain method's thread scope is not a Reactor Context").isInstanceOf(IllegalStateException.class));
    }

    /** The bean under test: every method reports what {@link CurrentLock} showed it. */
    static class Orders {

        @Autowired
        @Lazy
        Orders self;

        @Autowired
        Ledger ledger;

        @DistributedLock(name = "orders", key = "#id")
        public HeldLock plain(String id) {
            return CurrentLock.get();
        }

        @DistributedLock(name = "orders", key = "#id")
        public List<HeldLock> nestedSameKey(String id) {
            HeldLock outer = CurrentLock.get();
            HeldLock inner = self.plain(id);
            return List.of(outer, inner, CurrentLock.get());
        }

        @DistributedLock(name = "orders", key = "#id")
        public List<HeldLock> nestedOtherLock(String id) {
            HeldLock outer = CurrentLock.get();
            HeldLock inner = ledger.book(id);
            return List.of(outer, inner, CurrentLock.get());
        }

        @DistributedLock(name = "transfer", keys = {"#from", "#to"})
        public List<HeldLock> transfer(String from, String to) {
            return List.of(CurrentLock.get(from), CurrentLock.get(to), CurrentLock.get("transfer:" + to));
        }

        @DistributedLock(name = "transfer", keys = {"#from", "#to"})
        public HeldLock transferAskingGet(String from, String to) {
            return CurrentLock.get();
        }

        @DistributedLock(name = "transfer", keys = {"#from", "#to"})
        public HeldLock transferAskingKey(String from, String to, String other) {
            return CurrentLock.get(other);
        }

        public void unlockedAsserting() {
            CurrentLock.assertHeld();
        }

        @DistributedLock(name = "orders", key = "#id")
        public String asserting(String id) {
            CurrentLock.assertHeld();
            return "ran locked";
        }

        @DistributedLock(name = "orders", key = "#id", leaseTime = "300ms")
        public String outlivingItsLease(String id) throws InterruptedException {
            CurrentLock.assertHeld();
            Thread.sleep(500);
            CurrentLock.assertHeld();
            return "ran unlocked";
        }

        @DistributedLock(name = "orders", key = "#id")
        public CompletableFuture<HeldLock> async(String id) {
            return CompletableFuture.completedFuture(CurrentLock.get());
        }

        @DistributedLock(name = "orders", key = "#id")
        public Mono<List<HeldLock>> reactiveNested(String id) {
            return CurrentLock.mono().flatMap(outer -> self.reactiveInner(id).map(inner -> List.of(outer, inner)));
        }

        @DistributedLock(name = "orders", key = "#id")
        public Mono<HeldLock> reactiveInner(String id) {
            return CurrentLock.mono();
        }

        @DistributedLock(name = "orders", key = "#id")
        public Flux<Long> reactiveFlux(String id, int steps) {
            return Flux.interval(Duration.ofMillis(10)).take(steps)
                    .concatMap(tick -> CurrentLock.mono().map(HeldLock::fencingToken));
        }

        @DistributedLock(name = "orders", key = "#id")
        public HeldLock monoOnAThread(String id) {
            return CurrentLock.mono().block(Duration.ofSeconds(5));
        }
    }

    /** Another lock, taken inside an {@link Orders} call. */
    static class Ledger {

        @DistributedLock(name = "ledger", key = "#id")
        public HeldLock book(String id) {
            return CurrentLock.get();
        }
    }
}
