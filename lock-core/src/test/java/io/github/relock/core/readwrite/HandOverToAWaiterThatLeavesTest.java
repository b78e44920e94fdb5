package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A read-write release hands the lock to a waiter just as that waiter leaves (interrupted, or its client
 * closed): either the waiter reports the hold and owns it (a closed client's hold then ends with its lease), or
 * the hold goes back at once and the next owner gets the lock without waiting for the hand-over's claim to end.
 */
@Timeout(120)
class HandOverToAWaiterThatLeavesTest {

    private static final int ROUNDS = 16;

    @Test
    void aReaderInterruptedAsItIsHandedTheReadPhaseLeavesNothing() throws Exception {
        handOverAsTheWaiterLeaves(false, false);
    }

    @Test
    void aWriterInterruptedAsItIsHandedTheWriteHoldLeavesNothing() throws Exception {
        handOverAsTheWaiterLeaves(true, false);
    }

    @Test
    void aWriterWhoseClientClosesAsItIsHandedTheWriteHoldLeavesNothing() throws Exception {
        handOverAsTheWaiterLeaves(true, true);
    }

    private static void handOverAsTheWaiterLeaves(boolean waiterWrites, boolean close) throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient holderClient = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient nextClient = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            for (int round = 0; round < ROUNDS; round++) {
                String name = "handover:" + waiterWrites + close + ":" + round;
                RedisLockClient waiterClient = RedisLockClient.builder(server.newConnectionFactory())
                        .watchdogTimeout(Duration.ofSeconds(1)).build();
                ReadWriteDistributedLock held = holderClient.getReadWriteLock(name);
                held.writeLock().lock();
                AtomicReference<Object> outcome = new AtomicReference<>();
                AtomicReference<Boolean> heldAfter = new AtomicReference<>();
                Thread waiter = new Thread(() -> {
                    ReadWriteDistributedLock rw = waiterClient.getReadWriteLock(name);
                    ReentrantDistributedLock side = waiterWrites ? rw.writeLock() : rw.readLock();
                    try {
                        outcome.set(side.tryLock(20, TimeUnit.SECONDS));
                    }
                    catch (Throwable ex) {
                        outcome.set(ex);
                    }
                    Thread.interrupted();
                    try {
                        heldAfter.set(side.isHeldByCurrentThread());
                        if (heldAfter.get()) {
                            side.unlock();
                        }
                    }
                    catch (Throwable ex) {
                        heldAfter.set(false); // the client was closed: nothing held
                    }
                });
                waiter.start();
                awaitWaiting(server, held.writeLock().getKey(), name);
                held.writeLock().unlock(); // hands the lock to the waiter in the script
                Thread.sleep(round % 4);
                if (close) {
                    waiterClient.close();
                }
                else {
                    waiter.interrupt();
                }
                waiter.join(25_000);
                assertThat(waiter.isAlive()).isFalse();
                ReentrantDistributedLock next = nextClient.getReadWriteLock(name).writeLock();
                long start = System.nanoTime();
                boolean got = next.tryLock(5, TimeUnit.SECONDS);
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(got).as("round %d: waiter %s, held after %s; hash %s", round, outcome.get(),
                        heldAfter.get(), server.commands().hgetall("lock:{" + name + "}")).isTrue();
                if (!Boolean.TRUE.equals(outcome.get())) {
                    // a waiter that got nothing leaves nothing: no wait for a claim or a lease to run out
                    assertThat(tookMillis).as("round %d: waiter %s", round, outcome.get()).isLessThan(700);
                }
                next.unlock();
                waiterClient.close();
            }
        }
    }

    /** Until the waiter waits: its claim is in the lock's hash and its client listens for the lock's releases. */
    static void awaitWaiting(RedisServer server, String hash, String name) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> server.commands().hkeys(hash).stream().anyMatch(field -> field.endsWith(":i"))
                        && !server.commands().pubsubChannels("*{" + name + "}*").isEmpty());
    }
}
