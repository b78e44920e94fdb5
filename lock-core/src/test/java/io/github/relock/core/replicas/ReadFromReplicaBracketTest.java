package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.test.RedisServer;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.models.role.RedisNodeDescription;

/**
 * A factory may read from replicas ({@code readFrom}; spring.data.redis.lettuce.read-from): Lettuce then sends
 * what it deems read-only, CLIENT and INFO among them, to a replica. The CLIENT ID and run id that bracket a WAIT
 * tell whether the connection that ran the script and the WAIT changed: they must come from that connection, on
 * the primary. From a replica they never change when the primary's connection is re-established or moves to
 * another server, and a WAIT Lettuce sent again there would count.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ReadFromReplicaBracketTest {

    @Test
    void theBracketAroundTheWaitIsTakenOnThePrimaryWhenTheFactoryReadsFromReplicas() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer reader = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            assumeTrue(!primary.version().startsWith("6."), "per-subcommand stats (cmdstat_client|id) from Redis 7 on");
            ReadFrom fromReader = new ReadFrom() {
                @Override
                public List<RedisNodeDescription> select(Nodes nodes) {
                    return nodes.getNodes().stream().filter(node -> node.getUri().getPort() == reader.port()).toList();
                }
            };
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(primary.host(), primary.port()),
                    LettuceClientConfiguration.builder().readFrom(fromReader).commandTimeout(Duration.ofSeconds(5))
                            .build());
            factory.afterPropertiesSet();
            factory.start();
            try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(30))
                    .minReplicas(1).replicaAckTimeout(Duration.ofSeconds(1)).build()) {
                ReentrantDistributedLock lock = client.getLock("read-from-replica");
                reader.command("CONFIG", "RESETSTAT");
                for (int i = 0; i < 3; i++) {
                    assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
                    lock.unlock();
                }
                String stats = String.valueOf(reader.command("INFO", "commandstats"));
                assertThat(stats).as("the bracket asked the replica").doesNotContain("cmdstat_client|id:")
                        .doesNotContain("cmdstat_info:");
                assertThat(String.valueOf(primary.command("INFO", "commandstats"))).contains("cmdstat_client|id:");
            }
            finally {
                factory.destroy();
            }
        }
    }
}
