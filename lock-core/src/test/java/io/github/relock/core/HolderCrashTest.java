package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisServerExtension;

/** A holder that dies frees its lock when its lease ends: the watchdog died with it. */
@Timeout(60)
@Tag("jdk-independent")
class HolderCrashTest {

    static final long LEASE_MILLIS = 2_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static RedisLockClient client;

    @BeforeAll
    static void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"lease", "watchdog"})
    void aKilledHoldersLockFreesWithinItsLease(String mode) throws Exception {
        String name = "crash-" + mode;
        try (ChildJvm holder = ChildJvm.start(LockHolderProcess.class, String.valueOf(redis.server().port()), name,
                mode, String.valueOf(LEASE_MILLIS))) {
            String held = holder.awaitLine(line -> line.startsWith("HELD"), Duration.ofSeconds(30));
            long token = Long.parseLong(held.substring(5));
            if (mode.equals("watchdog")) {
                Thread.sleep(LEASE_MILLIS * 2); // the child's watchdog must keep it past one lease
                assertThat(redis.commands().exists(client.redisKeys(name).lock())).isOne();
            }

            long killedAt = System.nanoTime();
            holder.kill();
            ReentrantDistributedLock lock = client.getLock(name);
            assertThat(lock.tryLock(LEASE_MILLIS * 3, TimeUnit.MILLISECONDS)).isTrue();
            long freedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            System.out.printf("holder (%s, lease %d ms) SIGKILLed: lock acquired %d ms later%n", mode, LEASE_MILLIS,
                    freedAfter);
            assertThat(freedAfter).isLessThanOrEqualTo(LEASE_MILLIS + 500);
            assertThat(lock.fencingToken()).isGreaterThan(token);
            lock.unlock();
        }
    }
}
