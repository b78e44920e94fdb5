package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * A Redis that answers with an error is not a Redis that did not answer: the exception says which, and
 * carries Redis' own words (OOM, READONLY), so the operator knows what to fix.
 */
@Timeout(60)
class RefusedCommandTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private RedisLockClient client;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        redis.commands().configSet("maxmemory", "0");
        redis.commands().replicaofNoOne();
    }

    @Test
    void maxmemoryReachedNamesRedisRefusal() {
        redis.commands().configSet("maxmemory", "1");
        ReentrantDistributedLock lock = client.getLock("order:1");
        assertThatThrownBy(lock::tryLock).isInstanceOf(LockOperationException.class)
                .hasMessageStartingWith("Could not acquire lock 'order:1': Redis refused it: ")
                .hasMessageContaining("OOM command not allowed"); // 6.2 wraps it in "ERR Error running script"
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void aReadOnlyReplicaNamesRedisRefusal() throws IOException {
        redis.commands().replicaof("127.0.0.1", unusedPort());
        ReentrantDistributedLock lock = client.getLock("order:2");
        assertThatThrownBy(lock::tryLock).isInstanceOf(LockOperationException.class)
                .hasMessageStartingWith("Could not acquire lock 'order:2': Redis refused it: ")
                .hasMessageContaining("READONLY You can't write against a read only replica");
        assertThat(client.heldLocks()).isEmpty();
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
