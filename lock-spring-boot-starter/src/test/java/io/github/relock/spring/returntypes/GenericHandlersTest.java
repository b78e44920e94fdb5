package io.github.relock.spring.returntypes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.HeldLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import reactor.core.publisher.Mono;

/**
 * Annotated implementations of generic interfaces, called through the interface (a bridge method whose
 * declared return type is Object) with class-based and JDK proxies: the lock is taken, and held for as
 * long as the implementation's real return type says.
 */
@Timeout(60)
@Tag("jdk-independent")
class GenericHandlersTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(MonoHandler.class)
            .withBean(FutureHandler.class).withBean(PlainHandler.class);

    public interface Handler<T, R> {
        R handle(T input);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    @Timeout(20)
    void callsThroughAGenericInterfaceAreLockedForTheirWholeWork(boolean classProxies) {
        runner.withPropertyValues("spring.aop.proxy-target-class=" + classProxies).run(context -> {
            RedisLockClient client = context.getBean(RedisLockClient.class);
            Handler<String, String> plain = handler(context, String.class);
            assertThat(plain.handle("p")).isEqualTo("handler:p");
            Handler<String, Mono<String>> mono = handler(context, Mono.class);
            assertThat(mono.handle("m").block(Duration.ofSeconds(5))).isEqualTo("handler:m");
            Handler<String, CompletableFuture<String>> future = handler(context, CompletableFuture.class);
            CompletableFuture<String> work = future.handle("f");
            assertThat(client.heldLocks()).as("held until the future completes").extracting(HeldLock::name)
                    .contains("handler:f");
            FutureHandler.release("f");
            assertThat(work).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("handler:f");
            assertThat(client.heldLocks()).isEmpty();
        });
    }

    /** The context's handler whose result for a probe call is a {@code resultType}. */
    @SuppressWarnings("unchecked")
    private static <R> Handler<String, R> handler(org.springframework.context.ApplicationContext context,
            Class<?> resultType) {
        return context.getBeansOfType(Handler.class).values().stream()
                .filter(handler -> resultType.isInstance(handler.handle("probe"))).findFirst().orElseThrow();
    }

    public static class PlainHandler implements Handler<String, String> {

        private final RedisLockClient client;

        public PlainHandler(RedisLockClient client) {
            this.client = client;
        }

        @Override
        @DistributedLock(name = "handler", key = "#input")
        public String handle(String input) {
            return client.heldLocks().get(0).name();
        }
    }

    public static class MonoHandler implements Handler<String, Mono<String>> {

        private final RedisLockClient client;

        public MonoHandler(RedisLockClient client) {
            this.client = client;
        }

        @Override
        @DistributedLock(name = "handler", key = "#input")
        public Mono<String> handle(String input) {
            return Mono.fromCallable(() -> client.heldLocks().get(0).name());
        }
    }

    public static class FutureHandler implements Handler<String, CompletableFuture<String>> {

        private static final java.util.Map<String, CompletableFuture<String>> pending =
                new java.util.concurrent.ConcurrentHashMap<>();

        static void release(String input) {
            pending.remove(input).complete("handler:" + input);
        }

        @Override
        @DistributedLock(name = "handler", key = "#input")
        public CompletableFuture<String> handle(String input) {
            if (input.equals("probe")) {
                return CompletableFuture.completedFuture("probe");
            }
            CompletableFuture<String> work = new CompletableFuture<>();
            pending.put(input, work);
            return work;
        }
    }
}
