package io.github.relock.benchmarks.annotation;

import java.util.concurrent.TimeUnit;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;

/**
 * The same locked call written twice: once with the annotation, once by hand with the API, doing what
 * the aspect does with default settings (wait up to 5 s, watchdog lease, release in finally).
 */
public class LockedWork {

    private final RedisLockClient client;
    private long counter;

    public LockedWork(RedisLockClient client) {
        this.client = client;
    }

    @DistributedLock(name = "bench", key = "#orderId")
    public long annotated(String orderId) {
        return ++counter;
    }

    public long direct(String orderId) throws InterruptedException {
        // named as the aspect names it
        ReentrantDistributedLock lock = client.getLock(LockNames.of("bench", orderId));
        if (!lock.tryLock(5, TimeUnit.SECONDS)) {
            throw new IllegalStateException("lock " + lock.getName() + " not acquired");
        }
        try {
            return ++counter;
        }
        finally {
            lock.unlock();
        }
    }
}
