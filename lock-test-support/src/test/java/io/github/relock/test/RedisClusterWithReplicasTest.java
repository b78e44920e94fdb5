package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("jdk-independent")
class RedisClusterWithReplicasTest {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension(2, 1);

    @Test
    void eachPrimaryGetsASyncedReplica(RedisClusterSetup setup) {
        List<RedisServer> nodes = setup.nodes();
        assertThat(nodes).hasSize(4);
        assertThat(nodes.subList(0, 2)).allMatch(node -> node.command("ROLE").startsWith("master"));
        assertThat(nodes.subList(2, 4)).allMatch(node -> node.command("ROLE").startsWith("slave"));

        new StringRedisTemplate(cluster.newConnectionFactory()).opsForValue().set("{a}", "1");

        RedisServer primary = setup.nodeForKey("{a}");
        RedisServer replica = nodes.get(2 + nodes.indexOf(primary)); // replicas follow their primaries' order
        assertThat(primary.command("GET", "{a}")).isEqualTo("1");
        // a cluster replica answers GET with MOVED, but DBSIZE shows the replicated key
        Await.untilTrue(Duration.ofSeconds(10), "the key to reach " + replica, () -> "1".equals(replica.command("DBSIZE")));
    }
}
