package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.lettuce.core.cluster.SlotHash;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("jdk-independent")
class RedisClusterSetupTest {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    @Test
    void threePrimariesShareAllSlots(RedisClusterSetup setup) {
        assertThat(setup.nodes()).hasSize(3);
        assertThat(setup.nodeForSlot(0)).isSameAs(setup.nodes().get(0));
        assertThat(setup.nodeForSlot(8000)).isSameAs(setup.nodes().get(1));
        assertThat(setup.nodeForSlot(16383)).isSameAs(setup.nodes().get(2));
        for (RedisServer node : setup.nodes()) {
            assertThat(node.command("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_slots_assigned:16384");
        }
    }

    @Test
    void keysWithDifferentHashTagsLandOnDifferentNodes(RedisClusterSetup setup) {
        StringRedisTemplate template = new StringRedisTemplate(cluster.newConnectionFactory());
        Set<RedisServer> owners = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            String key = "lock:{order:" + i + "}";
            template.opsForValue().set(key, "v" + i);
            RedisServer owner = setup.nodeForKey(key);
            assertThat(owner.command("GET", key)).isEqualTo("v" + i); // really stored on the owning node
            owners.add(owner);
        }
        assertThat(owners).hasSize(3);
    }

    @Test
    void migrateSlotMovesTheKeysAndClientsFollow(RedisClusterSetup setup) {
        StringRedisTemplate template = new StringRedisTemplate(cluster.newConnectionFactory());
        String key = "lock:{order:42}";
        String fence = "lock:{order:42}:fence";
        template.opsForValue().set(key, "held");
        template.opsForValue().set(fence, "7");
        int slot = SlotHash.getSlot(key);
        RedisServer source = setup.nodeForSlot(slot);
        RedisServer target = setup.nodes().stream().filter(node -> node != source).findFirst().orElseThrow();

        setup.migrateSlot(slot, target);

        assertThat(setup.nodeForSlot(slot)).isSameAs(target);
        assertThat(target.command("GET", key)).isEqualTo("held");
        assertThat(source.command("DBSIZE")).isEqualTo("0");
        assertThat(template.opsForValue().get(key)).isEqualTo("held"); // the client's cached topology was stale
        assertThat(template.opsForValue().get(fence)).isEqualTo("7");
        template.opsForValue().set(key, "again");
        assertThat(target.command("GET", key)).isEqualTo("again");
    }
}
