package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.test.RedisServer;

/**
 * The WAIT runs on the connection spring-data-redis dedicates to pipelines. A factory may buffer what a pipeline
 * sends until it closes (its pipelining flush policy): the script and WAIT must still be sent at once.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class FlushPolicyTest {

    @Test
    void anAcquisitionIsAcknowledgedPromptlyWhateverTheFactorysPipeliningFlushPolicy() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            LettuceConnectionFactory factory = primary.newConnectionFactory();
            factory.setPipeliningFlushPolicy(LettuceConnection.PipeliningFlushPolicy.flushOnClose());
            try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(30))
                    .minReplicas(1).replicaAckTimeout(Duration.ofSeconds(1)).build()) {
                ReentrantDistributedLock lock = client.getLock("buffered");
                long started = System.nanoTime();
                assertThat(lock.tryLock(3, TimeUnit.SECONDS)).isTrue();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(2_000);
                assertThat(replica.command("HLEN", "lock:{buffered}")).isEqualTo("1");
                lock.unlock();
            }
        }
    }
}
