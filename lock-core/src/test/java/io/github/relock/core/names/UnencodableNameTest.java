package io.github.relock.core.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A lock name with an unpaired surrogate has no UTF-8 form: it is sent as '?', so the release is announced on
 * a channel whose name, read back, is not the one the waiter subscribed to, and the wake-up never arrives (the
 * waiter sleeps out the holder's whole lease); and "a\uD800" and "a?" are the same lock. Such a name must be
 * refused at once, as a blank or too long one is, or work.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class UnencodableNameTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aNameWithAnUnpairedSurrogateIsRefusedOrWakesItsWaiter() throws Exception {
        String name = "odd\uD800name";
        try (RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock held;
            try {
                held = holder.getLock(name);
            }
            catch (IllegalArgumentException refused) {
                System.out.println("refused: " + refused.getMessage());
                assertThat(refused.getMessage()).contains("surrogate");
                return;
            }
            held.lock(); // the watchdog's 30 s lease: a waiter not woken sleeps on it
            CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
                long start = System.nanoTime();
                try {
                    assertThat(waiter.getLock(name).tryLock(5, TimeUnit.SECONDS)).isTrue();
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
                waiter.getLock(name).unlock();
                return (System.nanoTime() - start) / 1_000_000;
            }, runnable -> new Thread(runnable).start());
            Thread.sleep(300);
            held.unlock();
            long millis = waited.get(20, TimeUnit.SECONDS);
            System.out.printf("a waiter on '%s' got the lock %d ms after it began, released at 300 ms%n", name, millis);
            assertThat(millis).as("woken by the release").isLessThan(1_300);
        }
    }
}
