package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisServerExtension;

/**
 * Two instances configured with the same client id ({@code relock.client-id=host1} on two machines, or a
 * restart while the old process's locks are still leased) must never share a lock: replay detection may
 * only ever recognise a command of the very same client instance.
 */
@Timeout(60)
@Tag("jdk-independent")
class DuplicateClientIdTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void twoProcessesWithTheSameClientIdNeverBothGetTheLock() throws Exception {
        String port = String.valueOf(redis.server().port());
        try (ChildJvm first = ChildJvm.start(SameClientIdProcess.class, port, "host1", "shared")) {
            String a = first.awaitLine(line -> line.startsWith("HELD") || line.equals("BUSY"), Duration.ofSeconds(30));
            String b;
            try (ChildJvm second = ChildJvm.start(SameClientIdProcess.class, port, "host1", "shared")) {
                b = second.awaitLine(line -> line.startsWith("HELD") || line.equals("BUSY"), Duration.ofSeconds(30));
            }
            assertThat(a).startsWith("HELD host1");
            assertThat(b).as("the second process, same client id, same main-thread id").isEqualTo("BUSY");
        }
    }

    @Test
    void twoClientsWithTheSameClientIdInOneJvmAreDifferentOwners() {
        try (RedisLockClient one = RedisLockClient.builder(redis.connectionFactory()).clientId("host1").build();
                RedisLockClient two = RedisLockClient.builder(redis.newConnectionFactory()).clientId("host1").build()) {
            assertThat(one.getClientId()).startsWith("host1").isNotEqualTo(two.getClientId());
            ReentrantDistributedLock mine = one.getLock("same-thread");
            assertThat(mine.tryLock()).isTrue();
            assertThat(two.getLock("same-thread").tryLock()).as("same thread, other client").isFalse();
            mine.unlock();
        }
    }
}
