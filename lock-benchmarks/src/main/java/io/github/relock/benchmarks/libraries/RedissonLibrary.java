package io.github.relock.benchmarks.libraries;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson's {@code RLock}, one {@code RedissonClient} per client with its default pools and threads. */
public final class RedissonLibrary implements LockLibrary {

    private final String version;

    public RedissonLibrary(String version) {
        this.version = version;
    }

    @Override
    public String id() {
        return "redisson";
    }

    @Override
    public String description() {
        return "Redisson " + version + " RLock (default config, connection pings off); W5 getReadWriteLock, "
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
        return "bench:redisson:" + name;
    }

    @Override
    public LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout) {
        Config config = new Config();
        // Redisson pings every pooled connection every 30 s by default; that traffic has nothing to do with
        // locking and would only blur the command counts, so it is off (Lettuce sends none either)
        if (target.isCluster()) {
            config.useClusterServers().addNodeAddress(target.clusterNodes().stream().map(n -> "redis://" + n)
                    .toArray(String[]::new)).setPingConnectionInterval(0);
        }
        else {
            config.useSingleServer().setAddress(target.uri()).setPingConnectionInterval(0);
        }
        if (watchdogTimeout != null) {
            config.setLockWatchdogTimeout(watchdogTimeout.toMillis());
        }
        RedissonClient redisson = Redisson.create(config);
        AtomicLong owners = new AtomicLong(); // Redisson's asynchronous calls name their owner by a number
        return new LockClient() {
            @Override
            public BenchLock lock(String name) {
                RLock lock = redisson.getLock("bench:redisson:" + name);
                return BenchLock.of(lock);
            }

            @Override
            public BenchLock readLock(String name) {
                return BenchLock.of(redisson.getReadWriteLock("bench:redisson:" + name).readLock());
            }

            @Override
            public BenchLock writeLock(String name) {
                return BenchLock.of(redisson.getReadWriteLock("bench:redisson:" + name).writeLock());
            }

            @Override
            public BenchLock fairLock(String name) {
                return BenchLock.of(redisson.getFairLock("bench:redisson:" + name));
            }

            @Override
            public AsyncLock asyncLock(String name) {
                RLock lock = redisson.getLock("bench:redisson:" + name);
                long owner = owners.incrementAndGet();
                return new AsyncLock() {
                    @Override
                    public CompletionStage<Boolean> tryLock(Duration wait, Duration lease) {
                        return lock.tryLockAsync(wait.toMillis(), lease.toMillis(), TimeUnit.MILLISECONDS, owner);
                    }

                    @Override
                    public CompletionStage<Void> unlock() {
                        return lock.unlockAsync(owner);
                    }
                };
            }

            @Override
            public void close() {
                redisson.shutdown(0, 5, TimeUnit.SECONDS);
            }
        };
    }
}
