package io.github.relock.core.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * A thousand callers (virtual threads where the JDK has them) contend on a few names of every kind: never two
 * inside an exclusive lock, every caller gets through, nothing is left locked, and the client adds no thread of
 * its own beyond its two.
 */
@Timeout(180)
@Tag("redis-version-independent")
class ManyVirtualThreadsTest {

    private static final int CALLERS = 1_000;

    @Test
    void aThousandCallersGetThroughWithTheClientsTwoThreads() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            String id = client.getClientId();
            int names = 5;
            AtomicIntegerArray inside = new AtomicIntegerArray(names);
            AtomicLongArray lastToken = new AtomicLongArray(names);
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            AtomicInteger through = new AtomicInteger();
            AtomicInteger mostThreads = new AtomicInteger();
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                int n = i % names;
                int kind = (i / names) % 3;
                callers.add(start(() -> {
                    ReentrantDistributedLock lock = kind == 0 ? client.getLock("vt:" + n)
                            : kind == 1 ? client.getFairLock("vt:fair:" + n)
                                    : client.getReadWriteLock("vt:rw:" + n).writeLock();
                    try {
                        if (!lock.tryLock(120, 30, TimeUnit.SECONDS)) {
                            problems.add("timed out");
                            return;
                        }
                        try {
                            if (kind == 0) {
                                if (inside.incrementAndGet(n) != 1) {
                                    problems.add("two inside " + n);
                                }
                                long token = lock.fencingToken();
                                if (token <= lastToken.get(n)) {
                                    problems.add("token " + token + " after " + lastToken.get(n));
                                }
                                lastToken.set(n, token);
                                inside.decrementAndGet(n);
                            }
                            mostThreads.accumulateAndGet(Probe.relockThreads(id).size(), Math::max);
                        }
                        finally {
                            lock.unlock();
                        }
                        through.incrementAndGet();
                    }
                    catch (Throwable ex) {
                        problems.add(ex.toString());
                    }
                }));
            }
            for (Thread caller : callers) {
                caller.join(150_000);
                assertThat(caller.isAlive()).as("stuck: %s", java.util.Arrays.toString(caller.getStackTrace()))
                        .isFalse();
            }
            assertThat(problems).isEmpty();
            assertThat(through.get()).isEqualTo(CALLERS);
            assertThat(mostThreads.get()).as("the client's own threads").isLessThanOrEqualTo(2);
            assertThat(client.heldLocks()).isEmpty();
            for (int n = 0; n < names; n++) {
                assertThat(server.commands().exists(client.getLock("vt:" + n).getKey())).isZero();
            }
        }
    }

    /** A virtual thread where the JDK has them (21+), a platform thread otherwise. */
    private static Thread start(Runnable body) throws Exception {
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            // through the public interface Thread.Builder: its implementing class is not open to reflection
            Method startMethod = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
            return (Thread) startMethod.invoke(builder, body);
        }
        catch (NoSuchMethodException ex) {
            Thread thread = new Thread(body);
            thread.setDaemon(true);
            thread.start();
            return thread;
        }
    }
}
