package io.github.relock.docs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.LockNames;
import io.github.relock.core.LockOwner;
import io.github.relock.core.LockSettings;
import io.github.relock.core.MultiLock;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/** The core API guide's examples, on a client of their own; each method returns what it observed. */
public class CoreApiExamples implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CoreApiExamples.class);

    final List<Long> ledger = new ArrayList<>();

    private final RedisLockClient client;

    CoreApiExamples(RedisConnectionFactory redisConnectionFactory) {
        // tag::client[]
        RedisLockClient client = RedisLockClient.builder(redisConnectionFactory)  // a Lettuce factory
                .keyPrefix("lock:")                              // default "lock:"
                .watchdogTimeout(Duration.ofSeconds(30))         // default 30 s
                .build();                                        // close() it when done
        // end::client[]
        this.client = client;
    }

    static long tenLines(RedisConnectionFactory redisConnectionFactory) throws InterruptedException {
        long token = 0;
        // tag::ten-lines[]
        RedisLockClient client = RedisLockClient.builder(redisConnectionFactory).build();   // one per application
        ReentrantDistributedLock lock = client.getLock("order:42");     // a java.util.concurrent.locks.Lock
        if (lock.tryLock(5, TimeUnit.SECONDS)) {                       // wait up to 5 s; renewed while held
            try {
                token = lock.fencingToken();                          // hand it to what you write
            }
            finally {
                lock.unlock();                                        // only the owner may
            }
        }
        client.close();                                               // stops renewals and subscriptions
        // end::ten-lines[]
        return token;
    }

    boolean tryLock() throws InterruptedException {
        // tag::try-lock[]
        ReentrantDistributedLock lock = client.getLock("order:42");   // a java.util.concurrent.locks.Lock
        if (lock.tryLock(5, TimeUnit.SECONDS)) {     // wait up to 5 s; the watchdog renews it while held
            try {
                ledger.add(lock.fencingToken());     // pass the token to what you protect
            }
            finally {
                lock.unlock();                       // not the owner: IllegalMonitorStateException
            }
            return true;
        }
        return false;                                // busy for the whole 5 s
        // end::try-lock[]
    }

    boolean byName() throws InterruptedException {
        // tag::by-name[]
        ReentrantDistributedLock lock = client.getLock(LockNames.of("shipping", "42"));   // the annotation's lock
        if (lock.tryLock(Duration.ofSeconds(2))) {      // wait up to 2 s
            try {
                ledger.add(lock.fencingToken());
            }
            finally {
                lock.unlock();
            }
            return true;
        }
        return false;
        // end::by-name[]
    }

    int reenter() {
        ReentrantDistributedLock lock = client.getLock("order:42");
        // tag::reenter[]
        lock.lock();                         // wait as long as it takes
        lock.lock();                         // the same thread again: re-entered, no round trip
        int holds = lock.getHoldCount();     // 2
        lock.unlock();
        lock.unlock();                       // the last unlock releases it in Redis
        // end::reenter[]
        return holds;
    }

    Duration fixedLease() throws InterruptedException {
        ReentrantDistributedLock lock = client.getLock("order:42");
        Duration left = Duration.ZERO;
        // tag::fixed-lease[]
        if (lock.tryLock(5, 10, TimeUnit.SECONDS)) {           // wait up to 5 s, then a fixed 10 s lease
            try {
                left = lock.remainingLease();                  // counts down; no watchdog renews it
            }
            finally {
                lock.unlock();                                 // past the lease: LockLostException
            }
        }
        // end::fixed-lease[]
        return left;
    }

    String settings() throws InterruptedException {
        // tag::settings[]
        String name = LockNames.of("payments", "42");           // "payments:42": what @DistributedLock(name = "payments") locks
        ReentrantDistributedLock lock = client.getLock(name)
                .withMaxHold(Duration.ofMinutes(5));            // a watchdog hold ends after 5 minutes at most
        LockSettings settings = new LockSettings(Duration.ofSeconds(2), null, null);   // wait 2 s, watchdog lease
        if (lock.tryLock(settings)) {
            lock.unlock();
        }
        // end::settings[]
        return name;
    }

    boolean multi() throws InterruptedException {
        // tag::multi[]
        MultiLock both = client.getMultiLock("account:1", "account:2");   // all or none, sorted by name
        if (both.tryLock(2, TimeUnit.SECONDS)) {                         // one wait budget for both
            try {
                moveMoney("account:1", "account:2");
            }
            finally {
                both.unlock();
            }
            return true;
        }
        return false;
        // end::multi[]
    }

    void moveMoney(String from, String to) {
        ledger.add((long) (from + to).length());
    }

    void readWrite() {
        // tag::read-write[]
        ReadWriteDistributedLock doc = client.getReadWriteLock("doc:7");
        doc.readLock().lock();            // many readers at once, across threads and clients
        try {
            ledger.add(doc.readLock().fencingToken());
        }
        finally {
            doc.readLock().unlock();
        }

        doc.writeLock().lock();           // one writer, and no reader while it holds
        try {
            ledger.add(doc.writeLock().fencingToken());
            doc.readLock().lock();        // a downgrade: the writer may read, and keep reading after
        }
        finally {
            doc.writeLock().unlock();
        }
        try {
            ledger.add(doc.readLock().fencingToken());
        }
        finally {
            doc.readLock().unlock();
        }
        // end::read-write[]
    }

    boolean fair() throws InterruptedException {
        // tag::fair[]
        ReentrantDistributedLock fair = client.getFairLock("report:daily");   // first come, first served
        if (fair.tryLock(10, TimeUnit.SECONDS)) {
            try {
                ledger.add(fair.fencingToken());
            }
            finally {
                fair.unlock();
            }
            return true;
        }
        return false;
        // end::fair[]
    }

    CompletableFuture<String> async() {
        // tag::async[]
        LockOwner owner = client.newOwner();                   // the holder, instead of a thread
        ReentrantDistributedLock lock = client.getLock("order:42");
        return lock.tryLockAsync(Duration.ofSeconds(5), null, owner)   // null lease: the watchdog renews it
                .thenCompose(acquired -> {
                    if (!acquired) {
                        return CompletableFuture.completedFuture("busy");
                    }
                    return CompletableFuture.supplyAsync(() -> "paid")        // the work, on any thread
                            .thenCompose(result -> lock.unlockAsync(owner).thenApply(unlocked -> result));
                });
        // end::async[]
    }

    void listen() {
        // tag::lost[]
        client.addLockLostListener(event -> log.warn("Lost lock {}", event.lockName()));
        // end::lost[]
    }

    @Override
    public void close() {
        client.close();
    }
}
