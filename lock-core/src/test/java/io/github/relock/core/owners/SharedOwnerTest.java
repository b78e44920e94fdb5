package io.github.relock.core.owners;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.TwoClients;
import io.github.relock.test.RedisServerExtension;
import io.github.relock.test.TestScale;

/**
 * Two threads of one explicit owner, each lock()/unlock() balanced, against a thread of another client.
 *
 * <p>The hardest case, twoThreadsOfOneOwnerAndAThreadOwnerOfTheSameClient: a thread owner L of the same client
 * hands the lock to one sleeping thread of owner O outside O's turn while another thread of O, in O's turn,
 * makes O's first acquisition. Two lock() calls that returned count as two levels: the first unlock() never
 * frees the lock in Redis while the other thread is inside, every fencingToken() and unlock() of O's threads
 * works, and no stale level is left unrenewed in Redis to keep the lock held by nobody until its lease ends.
 */
@Timeout(300)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class SharedOwnerTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final TwoClients clients = TwoClients.onTheSharedFactory(redis);

    @Test
    void twoThreadsOfOneOwnerAgainstAnotherClient() throws Exception {
        run(false);
    }

    @Test
    void twoThreadsOfOneOwnerWithLeaseLengtheningReEntries() throws Exception {
        run(true);
    }

    @Test
    void twoThreadsOfOneOwnerAndAThreadOwnerOfTheSameClient() throws Exception {
        // a race: up to 8 runs of 1,000 rounds, ~4 s each (fewer in the repeat runs: TestScale)
        for (int attempt = 0; attempt < TestScale.of(8); attempt++) {
            run(false, true);
        }
    }

    private void run(boolean lengthen) throws Exception {
        run(lengthen, false);
    }

    private void run(boolean lengthen, boolean localThreadOwner) throws Exception {
        String name = "bk2:shared";
        LockOwner owner = clients.first().newOwner();
        ReentrantDistributedLock mine = clients.first().getLock(name, owner);
        ReentrantDistributedLock theirs = clients.second().getLock(name);
        AtomicInteger ownerInside = new AtomicInteger();
        AtomicInteger otherInside = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        int rounds = localThreadOwner ? 1000 : 200;
        CountDownLatch done = new CountDownLatch(localThreadOwner ? 4 : 3);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        mine.lock();
                        ownerInside.incrementAndGet();
                        if (otherInside.get() != 0 && !localThreadOwner) {
                            problems.add("owner got in while the other client was inside");
                        }
                        try {
                            mine.fencingToken();
                        }
                        catch (RuntimeException ex) {
                            problems.add("round " + i + " after lock(): " + ex + "; hash "
                                    + redis.commands().hgetall(mine.getKey()) + " held " + clients.first().heldLocks());
                        }
                        if (lengthen && (i % 2 == 0)) {
                            try {
                                if (!mine.tryLock(0, 90, TimeUnit.SECONDS)) {
                                    problems.add("round " + i + " re-entry refused; hash "
                                            + redis.commands().hgetall(mine.getKey()) + " held "
                                            + clients.first().heldLocks());
                                }
                                else {
                                    mine.unlock();
                                }
                            }
                            catch (InterruptedException | RuntimeException ex) {
                                problems.add("round " + i + " re-entry: " + ex);
                            }
                        }
                        ownerInside.decrementAndGet();
                        try {
                            mine.unlock();
                        }
                        catch (RuntimeException ex) {
                            problems.add("round " + i + " unlock: " + ex);
                        }
                    }
                }
                finally {
                    done.countDown();
                }
            }));
        }
        threads.add(new Thread(() -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    theirs.lock();
                    otherInside.incrementAndGet();
                    if (ownerInside.get() != 0) {
                        problems.add("other client got in while the owner was inside");
                    }
                    otherInside.decrementAndGet();
                    theirs.unlock();
                }
            }
            catch (RuntimeException ex) {
                problems.add("other: " + ex);
            }
            finally {
                done.countDown();
            }
        }));
        if (localThreadOwner) {
            ReentrantDistributedLock local = clients.first().getLock(name);
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        local.lock();
                        otherInside.incrementAndGet();
                        if (ownerInside.get() != 0) {
                            problems.add("a thread owner of the same client got in while the owner was inside");
                        }
                        otherInside.decrementAndGet();
                        local.unlock();
                    }
                }
                catch (RuntimeException ex) {
                    problems.add("local: " + ex);
                }
                finally {
                    done.countDown();
                }
            }));
        }
        threads.forEach(t -> {
            t.setDaemon(true);
            t.start();
        });
        boolean finished = done.await(120, TimeUnit.SECONDS);
        assertThat(problems).hasSizeLessThan(1_000_000).isEmpty();
        assertThat(finished).isTrue();
    }
}
