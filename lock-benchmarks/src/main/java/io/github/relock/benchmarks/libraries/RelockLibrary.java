package io.github.relock.benchmarks.libraries;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

/** relock as a user would set it up: one Lettuce connection factory with its defaults, one client. */
public final class RelockLibrary implements LockLibrary {

    private final String version;

    public RelockLibrary(String version) {
        this.version = version;
    }

    @Override
    public String id() {
        return "relock";
    }

    @Override
    public String description() {
        return "relock " + version + " ReentrantDistributedLock (Lettuce, shared native connection); W5 getReadWriteLock, "
                + "W6 getFairLock";
    }

    @Override
    public boolean hasLockKinds() {
        return true;
    }

    @Override
    public boolean hasAsyncLocks() {
        return true;
    }

    @Override
    public boolean supportsCluster() {
        return true;
    }

    @Override
    public String lockKey(String name) {
        return "bench:relock:{" + name + "}";
    }

    @Override
    public LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout) {
        LettuceConnectionFactory factory = startedFactory(target);
        RedisLockClient.Builder builder = RedisLockClient.builder(factory).keyPrefix("bench:relock:");
        if (watchdogTimeout != null) {
            builder.watchdogTimeout(watchdogTimeout);
        }
        RedisLockClient client = builder.build();
        return new LockClient() {
            @Override
            public BenchLock lock(String name) {
                ReentrantDistributedLock lock = client.getLock(name);
                return BenchLock.of(lock);
            }

            @Override
            public BenchLock readLock(String name) {
                return BenchLock.of(client.getReadWriteLock(name).readLock());
            }

            @Override
            public BenchLock writeLock(String name) {
                return BenchLock.of(client.getReadWriteLock(name).writeLock());
            }

            @Override
            public BenchLock fairLock(String name) {
                return BenchLock.of(client.getFairLock(name));
            }

            @Override
            public AsyncLock asyncLock(String name) {
                ReentrantDistributedLock lock = client.getLock(name);
                LockOwner owner = client.newOwner();
                return new AsyncLock() {
                    @Override
                    public CompletionStage<Boolean> tryLock(Duration wait, Duration lease) {
                        return lock.tryLockAsync(wait, lease, owner);
                    }

                    @Override
                    public CompletionStage<Void> unlock() {
                        return lock.unlockAsync(owner);
                    }
                };
            }

            @Override
            public void close() {
                client.close();
                factory.destroy();
            }
        };
    }

    /**
     * A factory with Spring Data's defaults (one shared, multiplexed native connection); on a cluster, with
     * adaptive topology refresh, as Spring Boot configures it.
     */
    static LettuceConnectionFactory startedFactory(RedisTarget target) {
        LettuceConnectionFactory factory = target.isCluster()
                ? new LettuceConnectionFactory(new RedisClusterConfiguration(target.clusterNodes()),
                        LettuceClientConfiguration.builder().clientOptions(ClusterClientOptions.builder()
                                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                        .enableAllAdaptiveRefreshTriggers().build())
                                .build()).build())
                : new LettuceConnectionFactory(new RedisStandaloneConfiguration(target.host(), target.port()));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
