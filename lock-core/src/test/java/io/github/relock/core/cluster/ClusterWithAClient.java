package io.github.relock.core.cluster;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisClusterSetup;

/**
 * A Redis Cluster of three primaries and a lock client on it (2 s watchdog), started before a test class and
 * stopped after it: what the tests of a node answering {@code CLUSTERDOWN} share. Registered as a static field.
 */
final class ClusterWithAClient implements BeforeAllCallback, AfterAllCallback {

    private final String clientId;
    private @Nullable RedisClusterSetup cluster;
    private @Nullable RedisLockClient client;

    ClusterWithAClient(String clientId) {
        this.clientId = clientId;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = RedisClusterSetup.start(3, 0);
        client = RedisLockClient.builder(cluster.newConnectionFactory()).clientId(clientId)
                .watchdogTimeout(Duration.ofSeconds(2)).build();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    RedisClusterSetup cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the cluster starts before the test class");
        }
        return cluster;
    }

    RedisLockClient client() {
        if (client == null) {
            throw new IllegalStateException("the client starts before the test class");
        }
        return client;
    }
}
