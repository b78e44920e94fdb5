package io.github.relock.benchmarks.libraries;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Integration's {@link RedisLockRegistry}, in SPIN or PUB_SUB mode, one registry per client over
 * its own Lettuce connection factory. The registry key is shared, so all clients contend on the same
 * Redis keys.
 *
 * <p>With its defaults a lock expires after 60 s whether or not it is still held; renewal needs a task
 * scheduler, which is only set for the watchdog workload (that is when the others run with a short
 * watchdog timeout too).
 */
public final class SpringIntegrationLibrary implements LockLibrary {

    private final RedisLockType type;
    private final String version;

    public SpringIntegrationLibrary(RedisLockType type, String version) {
        this.type = type;
        this.version = version;
    }

    @Override
    public String id() {
        return type == RedisLockType.SPIN_LOCK ? "si-spin" : "si-pubsub";
    }

    @Override
    public String description() {
        return "Spring Integration " + version + " RedisLockRegistry " + type + " (defaults: 60 s expiry"
                + (type == RedisLockType.SPIN_LOCK ? ", 100 ms between tries" : "") + ")";
    }

    @Override
    public String noLockKindsReason() {
        return "RedisLockRegistry has no read-write or fair lock";
    }

    @Override
    public LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout) {
        LettuceConnectionFactory factory = RelockLibrary.startedFactory(target);
        RedisLockRegistry registry = watchdogTimeout == null ? new RedisLockRegistry(factory, "bench:si")
                : new RedisLockRegistry(factory, "bench:si", watchdogTimeout);
        registry.setRedisLockType(type);
        ThreadPoolTaskScheduler scheduler = null;
        if (watchdogTimeout != null) {
            // renews each lock on its own timer every third of the expiry
            scheduler = new ThreadPoolTaskScheduler();
            scheduler.setThreadNamePrefix("si-renewal-");
            scheduler.setDaemon(true);
            scheduler.initialize();
            registry.setRenewalTaskScheduler(scheduler);
        }
        ThreadPoolTaskScheduler renewal = scheduler;
        return new LockClient() {
            @Override
            public BenchLock lock(String name) {
                Lock lock = registry.obtain(name);
                return BenchLock.of(lock);
            }

            @Override
            public void close() {
                registry.destroy();
                if (renewal != null) {
                    renewal.shutdown();
                }
                factory.destroy();
            }
        };
    }
}
