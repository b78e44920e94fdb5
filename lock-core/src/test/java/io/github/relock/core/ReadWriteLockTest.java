package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;
import io.github.relock.test.TestScale;

/** The read-write lock against a real redis-server: sharing, exclusion, re-entry, leases and wake-ups. */
@Timeout(60)
@Tag("jdk-independent")
class ReadWriteLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<RedisLockClient> clients = new ArrayList<>();
    final ExecutorService pool = Executors.newCachedThreadPool();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = newClient(Duration.ofSeconds(30));
        other = newClient(Duration.ofSeconds(30));
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        clients.forEach(RedisLockClient::close);
    }

    RedisLockClient newClient(Duration watchdog) {
        RedisLockClient created = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(watchdog).build();
        clients.add(created);
        return created;
    }

    @Test
    void sixteenReadersInFourClientsAreInsideAtOnce() throws Exception {
        CountDownLatch allInside = new CountDownLatch(16);
        CountDownLatch leave = new CountDownLatch(1);
        List<Future<?>> readers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            RedisLockClient readerClient = newClient(Duration.ofSeconds(30));
            for (int t = 0; t < 4; t++) {
                readers.add(pool.submit(() -> {
                    ReentrantDistributedLock read = readerClient.getReadWriteLock("doc:7").readLock();
                    assertThat(read.tryLock(5, TimeUnit.SECONDS)).isTrue();
                    try {
                        allInside.countDown();
                        leave.await();
                    }
                    finally {
                        read.unlock();
                    }
                    return null;
                }));
            }
        }
        assertThat(allInside.await(10, TimeUnit.SECONDS)).as("16 readers inside together").isTrue();
        assertThat(client.getReadWriteLock("doc:7").writeLock().tryLock()).as("no writer among readers").isFalse();
        leave.countDown();
        for (Future<?> reader : readers) {
            reader.get(10, TimeUnit.SECONDS);
        }
        ReentrantDistributedLock write = client.getReadWriteLock("doc:7").writeLock();
        assertThat(write.tryLock()).as("free once the last reader left").isTrue();
        write.unlock();
        assertThat(redis.commands().exists(write.getKey())).as("nothing left behind").isZero();
    }

    @Test
    void aWriterExcludesReadersAndWriters() throws Exception {
        ReentrantDistributedLock write = client.getReadWriteLock("doc:1").writeLock();
        write.lock();
        ReadWriteDistributedLock elsewhere = other.getReadWriteLock("doc:1");
        assertThat(elsewhere.readLock().tryLock()).isFalse();
        assertThat(elsewhere.writeLock().tryLock()).isFalse();
        assertThat(pool.submit(() -> client.getReadWriteLock("doc:1").readLock().tryLock()).get())
                .as("another thread of the same client").isFalse();
        write.unlock();
        assertThat(elsewhere.readLock().tryLock()).isTrue();
        elsewhere.readLock().unlock();
    }

    /** The write side reports the owner, not its hash field (the owner id and ":w"). */
    @Test
    void aWriteHoldIsReportedUnderItsOwnersId() {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock write = client.getReadWriteLock("doc:18", owner).writeLock();
        write.lock();
        assertThat(client.heldLocks()).singleElement().satisfies(held -> assertThat(held.ownerId())
                .isEqualTo(owner.id()));
        write.unlock();
    }

    /** Expired read holds and the hash's longest lease do not make a free lock look held. */
    @Test
    void isLockedAndRemainingLeaseCountOnlyHoldsStillAlive() throws Exception {
        ReentrantDistributedLock longRead = client.getReadWriteLock("doc:19").readLock();
        ReentrantDistributedLock shortRead = other.getReadWriteLock("doc:19").readLock();
        assertThat(longRead.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(shortRead.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(shortRead.remainingLease()).as("its own lease").isLessThanOrEqualTo(Duration.ofMillis(300));
        assertThat(longRead.remainingLease()).isGreaterThan(Duration.ofSeconds(5));
        longRead.unlock();
        Thread.sleep(600); // the short read's lease ends; the hash keeps the long one's TTL
        assertThat(shortRead.isLocked()).isFalse();
        assertThat(shortRead.remainingLease()).isZero();
    }

    @Test
    void bothSidesReenterAndCount() {
        ReadWriteDistributedLock doc = client.getReadWriteLock("doc:2");
        doc.writeLock().lock();
        doc.writeLock().lock();
        assertThat(doc.writeLock().getHoldCount()).isEqualTo(2);
        doc.readLock().lock();
        doc.readLock().lock();
        assertThat(doc.readLock().getHoldCount()).isEqualTo(2);
        doc.readLock().unlock();
        doc.readLock().unlock();
        doc.writeLock().unlock();
        assertThat(doc.writeLock().isHeldByCurrentThread()).isTrue();
        doc.writeLock().unlock();
        assertThat(doc.writeLock().isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(doc.writeLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(doc.readLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aWriterDowngradesByTakingTheReadLockFirst() throws Exception {
        ReadWriteDistributedLock doc = client.getReadWriteLock("doc:3");
        doc.writeLock().lock();
        doc.readLock().lock();
        doc.writeLock().unlock();
        ReadWriteDistributedLock elsewhere = other.getReadWriteLock("doc:3");
        assertThat(elsewhere.readLock().tryLock()).as("readers share with the downgraded writer").isTrue();
        ReentrantDistributedLock writer = newClient(Duration.ofSeconds(30)).getReadWriteLock("doc:3").writeLock();
        assertThat(writer.tryLock()).as("a writer still waits for both readers").isFalse();
        elsewhere.readLock().unlock();
        doc.readLock().unlock();
        assertThat(elsewhere.writeLock().tryLock()).isTrue();
        elsewhere.writeLock().unlock();
    }

    @Test
    void anUpgradeIsRefusedAtOnceInsteadOfDeadlocking() throws Exception {
        ReadWriteDistributedLock doc = client.getReadWriteLock("doc:4");
        doc.readLock().lock();
        long started = System.nanoTime();
        assertThatThrownBy(() -> doc.writeLock().tryLock(5, TimeUnit.SECONDS))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("holds the read lock").hasMessageContaining("downgrade");
        assertThatThrownBy(doc.writeLock()::lock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(doc.writeLock()::tryLock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("at once").isLessThan(Duration.ofSeconds(2));
        doc.readLock().unlock();
        assertThat(doc.writeLock().tryLock()).as("fine once the read lock is given back").isTrue();
        doc.writeLock().unlock();
    }

    /** Writers taking turns back to back must not starve a reader for its whole wait. */
    @Test
    void aReaderGetsInWhileWritersTakeTurnsBackToBack() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong writes = new AtomicLong();
        List<Future<?>> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            RedisLockClient writerClient = t % 2 == 0 ? client : other;
            writers.add(pool.submit(() -> {
                ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:17").writeLock();
                while (running.get()) {
                    if (write.tryLock(5, TimeUnit.SECONDS)) {
                        writes.incrementAndGet();
                        Thread.sleep(5);
                        write.unlock();
                    }
                }
                return null;
            }));
        }
        while (writes.get() < 20) {
            Thread.sleep(10);
        }
        ReentrantDistributedLock read = newClient(Duration.ofSeconds(30)).getReadWriteLock("doc:17").readLock();
        long started = System.nanoTime();
        boolean got = read.tryLock(10, TimeUnit.SECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        if (got) {
            read.unlock();
        }
        running.set(false);
        for (Future<?> writer : writers) {
            writer.get(20, TimeUnit.SECONDS);
        }
        assertThat(got).as("the reader got in among writers taking turns").isTrue();
        assertThat(waited).as("it waited only for the writers that came before it").isLessThan(Duration.ofSeconds(2));
    }

    /** Eight readers of one client arrive just as the writer leaves: none sleeps for the writer's lease. */
    @Test
    void readersOfOneClientArrivingAsTheWriterLeavesAllGetIn() throws Exception {
        RedisLockClient readers = newClient(Duration.ofSeconds(30));
        for (int trial = 0; trial < 10; trial++) {
            String name = "doc:late-" + trial;
            ReentrantDistributedLock write = client.getReadWriteLock(name).writeLock();
            write.lock(10, TimeUnit.SECONDS);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Long>> waits = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                waits.add(pool.submit(() -> {
                    ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
                    go.await();
                    long started = System.nanoTime();
                    assertThat(read.tryLock(15, TimeUnit.SECONDS)).isTrue();
                    long waited = System.nanoTime() - started;
                    read.unlock();
                    return waited;
                }));
            }
            go.countDown();
            Thread.sleep(0, (trial % 10) * 100_000); // the release lands while they attempt and subscribe
            write.unlock();
            for (Future<Long> wait : waits) {
                assertThat(Duration.ofNanos(wait.get(20, TimeUnit.SECONDS))).isLessThan(Duration.ofSeconds(1));
            }
        }
    }

    /** A read hold whose fixed lease ran out is no hold, so asking for write is no upgrade. */
    @Test
    void aReadHoldWhoseFixedLeaseEndedDoesNotCountAsAnUpgrade() throws Exception {
        ReadWriteDistributedLock doc = client.getReadWriteLock("doc:16");
        assertThat(doc.readLock().tryLock(0, 200, TimeUnit.MILLISECONDS)).isTrue();
        Thread.sleep(500);
        assertThat(doc.writeLock().tryLock()).isTrue();
        doc.writeLock().unlock();
    }

    @Test
    void aWriterGetsInWhileReadersArriveContinuously() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        List<Future<?>> readers = new ArrayList<>();
        for (int t = 0; t < 10; t++) {
            RedisLockClient readerClient = t % 2 == 0 ? client : other;
            readers.add(pool.submit(() -> {
                ReentrantDistributedLock read = readerClient.getReadWriteLock("doc:5").readLock();
                while (running.get()) {
                    if (read.tryLock(10, TimeUnit.SECONDS)) {
                        try {
                            reads.incrementAndGet();
                            Thread.sleep(50); // overlapping reads: the lock is never free without writer priority
                        }
                        finally {
                            read.unlock();
                        }
                    }
                }
                return null;
            }));
        }
        while (reads.get() < 20) {
            Thread.sleep(10);
        }
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:5").writeLock();
        long started = System.nanoTime();
        boolean got = write.tryLock(5, TimeUnit.SECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        if (got) {
            write.unlock();
        }
        running.set(false);
        for (Future<?> reader : readers) {
            reader.get(20, TimeUnit.SECONDS);
        }
        assertThat(got).as("the writer got in among continuous readers").isTrue();
        assertThat(waited).as("it waited only for the readers already inside").isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void aWritersReleaseWakesTheWaitingReadersTogether() throws Exception {
        ReentrantDistributedLock write = client.getReadWriteLock("doc:6").writeLock();
        write.lock(); // watchdog lease: without a wake-up, readers would sleep until it could end (30 s)
        RedisLockClient readerClient = newClient(Duration.ofSeconds(30));
        CountDownLatch asleep = new CountDownLatch(8);
        List<CompletableFuture<Long>> readers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            readers.add(CompletableFuture.supplyAsync(() -> {
                ReentrantDistributedLock read = readerClient.getReadWriteLock("doc:6").readLock();
                try {
                    asleep.countDown();
                    assertThat(read.tryLock(20, TimeUnit.SECONDS)).isTrue();
                    long in = System.nanoTime();
                    Thread.sleep(200); // all stay inside a while: each got in on its own wake-up
                    read.unlock();
                    return in;
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            }, pool));
        }
        asleep.await();
        Thread.sleep(300);
        long released = System.nanoTime();
        write.unlock();
        for (CompletableFuture<Long> reader : readers) {
            long in = reader.get(20, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(in - released)).as("woken by the release").isLessThan(Duration.ofSeconds(3));
        }
    }

    @Test
    void aCrashedReaderFreesItsShareWhenItsOwnLeaseEnds() throws Exception {
        ReentrantDistributedLock crashed = other.getReadWriteLock("doc:8").readLock();
        assertThat(crashed.tryLock(0, 500, TimeUnit.MILLISECONDS)).isTrue(); // and never released
        ReentrantDistributedLock alive = client.getReadWriteLock("doc:8").readLock();
        alive.lock(); // the watchdog keeps this one, and with it the hash, alive
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        Future<Long> writer = pool.submit(() -> {
            ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:8").writeLock();
            assertThat(write.tryLock(10, TimeUnit.SECONDS)).isTrue();
            long in = System.nanoTime();
            write.unlock();
            return in;
        });
        Thread.sleep(1_000); // the crashed reader's lease ended meanwhile; the live one still holds
        assertThat(writer.isDone()).as("the writer waits for the live reader").isFalse();
        long released = System.nanoTime();
        alive.unlock();
        long in = writer.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(in - released)).as("the expired share did not hold it up")
                .isLessThan(Duration.ofSeconds(2));
        assertThatThrownBy(crashed::unlock).as("the crashed reader learns of its loss")
                .isInstanceOf(LockLostException.class);
    }

    @Test
    void theWatchdogRenewsEveryReadersOwnLease() throws Exception {
        RedisLockClient shortLeases = newClient(Duration.ofMillis(600));
        ReentrantDistributedLock first = shortLeases.getReadWriteLock("doc:9").readLock();
        first.lock();
        Future<?> second = pool.submit(() -> {
            ReentrantDistributedLock read = shortLeases.getReadWriteLock("doc:9").readLock();
            read.lock();
            Thread.sleep(2_000);
            assertThat(read.isHeldByCurrentThread()).isTrue();
            read.unlock();
            return null;
        });
        Thread.sleep(2_000); // more than three leases
        assertThat(first.isHeldByCurrentThread()).isTrue();
        assertThat(other.getReadWriteLock("doc:9").writeLock().tryLock()).isFalse();
        second.get(10, TimeUnit.SECONDS);
        first.unlock();
        assertThat(other.getReadWriteLock("doc:9").writeLock().tryLock()).isTrue();
        other.getReadWriteLock("doc:9").writeLock().unlock();
    }

    @Test
    void aWriterThatGivesUpLetsTheReadersItHeldBackGoAtOnce() throws Exception {
        ReentrantDistributedLock reading = client.getReadWriteLock("doc:10").readLock();
        reading.lock();
        Future<Boolean> writer = pool.submit(() -> other.getReadWriteLock("doc:10").writeLock()
                .tryLock(800, TimeUnit.MILLISECONDS));
        Thread.sleep(300); // the writer waits, and claims the next turn
        RedisLockClient late = newClient(Duration.ofSeconds(30));
        Future<Long> lateReader = pool.submit(() -> {
            ReentrantDistributedLock read = late.getReadWriteLock("doc:10").readLock();
            assertThat(read.tryLock(10, TimeUnit.SECONDS)).isTrue();
            long in = System.nanoTime();
            read.unlock();
            return in;
        });
        Thread.sleep(200);
        assertThat(lateReader.isDone()).as("a reader that came after a waiting writer waits").isFalse();
        assertThat(writer.get(5, TimeUnit.SECONDS)).isFalse();
        long gaveUp = System.nanoTime();
        long in = lateReader.get(5, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(in - gaveUp)).as("woken when the writer withdrew, not when its claim ran out")
                .isLessThan(Duration.ofMillis(1_500));
        reading.unlock();
    }

    /** One owner waiting on two threads keeps its turn when one of them gives up. */
    @Test
    void anOwnerWaitingOnTwoThreadsKeepsItsTurnWhenOneGivesUp() throws Exception {
        ReentrantDistributedLock reading = client.getReadWriteLock("doc:14").readLock();
        reading.lock();
        LockOwner writerOwner = other.newOwner();
        Future<Boolean> impatient = pool.submit(() -> other.getReadWriteLock("doc:14", writerOwner).writeLock()
                .tryLock(300, TimeUnit.MILLISECONDS));
        Future<Boolean> patient = pool.submit(() -> other.getReadWriteLock("doc:14", writerOwner).writeLock()
                .tryLock(10, TimeUnit.SECONDS));
        assertThat(impatient.get(5, TimeUnit.SECONDS)).isFalse();
        RedisLockClient late = newClient(Duration.ofSeconds(30));
        assertThat(pool.submit(() -> late.getReadWriteLock("doc:14").readLock().tryLock()).get())
                .as("the owner still waits on another thread: its turn holds new readers back").isFalse();
        reading.unlock();
        assertThat(patient.get(5, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * A release wakes the writer whose turn it is, even when another writer of the same client, ahead of it in
     * the client's own queue, waits behind a reader: the last reader out used to wake only the first local
     * writer, which tried, found the earlier reader's turn and slept on, while the writer whose turn it was
     * (and every reader, held back by that writer) slept until its 1.3 s claim refresh (W5's 1.35 s max
     * writer wait). Local queue order and turn order differ when two writers' first attempts cross; here an
     * owner waiting on two threads makes them differ on purpose.
     */
    @Test
    void theLastReaderOutWakesTheWriterWhoseTurnItIsNotJustTheFirstLocalWriter() throws Exception {
        ReentrantDistributedLock reading = client.getReadWriteLock("doc:15").readLock();
        reading.lock();
        RedisLockClient readerClient = newClient(Duration.ofSeconds(30));
        LockOwner early = other.newOwner();
        // the early owner's first thread takes the first turn and the first place in other's local queue ...
        Future<Boolean> leaving = pool.submit(() -> other.getReadWriteLock("doc:15", early).writeLock()
                .tryLock(600, TimeUnit.MILLISECONDS));
        Thread.sleep(100);
        // ... a reader of a third client comes next in the turns ...
        Future<Long> reader = pool.submit(() -> {
            ReentrantDistributedLock read = readerClient.getReadWriteLock("doc:15").readLock();
            assertThat(read.tryLock(10, TimeUnit.SECONDS)).isTrue();
            read.unlock();
            return System.nanoTime();
        });
        Thread.sleep(100);
        // ... then a writer of other's: behind the reader in the turns, second in other's local queue ...
        Future<Long> lateWriter = pool.submit(() -> {
            ReentrantDistributedLock write = other.getReadWriteLock("doc:15").writeLock();
            assertThat(write.tryLock(10, TimeUnit.SECONDS)).isTrue();
            write.unlock();
            return System.nanoTime();
        });
        Thread.sleep(100);
        // ... and the early owner on a second thread, last in other's local queue but still first in the turns
        Future<Long> earlyWriter = pool.submit(() -> {
            ReentrantDistributedLock write = other.getReadWriteLock("doc:15", early).writeLock();
            assertThat(write.tryLock(10, TimeUnit.SECONDS)).isTrue();
            long in = System.nanoTime();
            write.unlock();
            return in;
        });
        assertThat(leaving.get(5, TimeUnit.SECONDS)).isFalse(); // its owner still waits on the second thread
        Thread.sleep(50);
        long released = System.nanoTime();
        reading.unlock();
        long in = earlyWriter.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(in - released)).as("the writer whose turn it is, woken by the last reader out")
                .isLessThan(Duration.ofMillis(500));
        assertThat(reader.get(10, TimeUnit.SECONDS)).isGreaterThan(in);
        assertThat(lateWriter.get(10, TimeUnit.SECONDS)).isGreaterThan(in);
    }

    @Test
    void aWaitingWriterThatDiedHoldsReadersBackForAtMostItsClaim() throws Exception {
        ReentrantDistributedLock reading = client.getReadWriteLock("doc:11").readLock();
        reading.lock();
        // what a writer that died while waiting leaves behind: its claim (layout: rw-state.lua)
        List<String> time = redis.commands().time();
        long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        redis.commands().hset(reading.getKey(), "dead-client:1:w:i", String.valueOf(now + 2_000));
        ReentrantDistributedLock late = other.getReadWriteLock("doc:11").readLock();
        assertThat(late.tryLock()).as("held back while the claim lasts").isFalse();
        long started = System.nanoTime();
        assertThat(late.tryLock(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(3_000));
        late.unlock();
        reading.unlock();
    }

    @Test
    void fencingTokensGrowAcrossBothSides() throws Exception {
        ReadWriteDistributedLock doc = client.getReadWriteLock("doc:12");
        doc.writeLock().lock();
        long write1 = doc.writeLock().fencingToken();
        doc.writeLock().unlock();
        doc.readLock().lock();
        long read = doc.readLock().fencingToken();
        long otherRead = pool.submit(() -> {
            ReentrantDistributedLock r = other.getReadWriteLock("doc:12").readLock();
            r.lock();
            long token = r.fencingToken();
            r.unlock();
            return token;
        }).get();
        doc.readLock().unlock();
        doc.writeLock().lock();
        long write2 = doc.writeLock().fencingToken();
        doc.writeLock().unlock();
        assertThat(read).isGreaterThan(write1);
        assertThat(otherRead).isGreaterThan(read);
        assertThat(write2).isGreaterThan(otherRead);
    }

    @Test
    void aReadWriteLockAndAnExclusiveLockOfTheSameNameAreApart() {
        ReentrantDistributedLock exclusive = client.getLock("doc:13");
        exclusive.lock();
        ReadWriteDistributedLock doc = other.getReadWriteLock("doc:13");
        assertThat(doc.writeLock().tryLock()).isTrue();
        assertThat(doc.writeLock().getKey()).isNotEqualTo(exclusive.getKey());
        doc.writeLock().unlock();
        exclusive.unlock();
    }

    @Test
    void forceUnlockEndsEveryHoldAndTheHoldersLearnIt() throws Exception {
        ReadWriteDistributedLock doc = client.getReadWriteLock("doc:14");
        doc.readLock().lock();
        assertThat(other.getReadWriteLock("doc:14").forceUnlock()).isTrue();
        assertThatThrownBy(doc.readLock()::unlock).isInstanceOf(LockLostException.class);
        assertThat(other.getReadWriteLock("doc:14").forceUnlock()).isFalse();
    }

    /** 50,000 operations by 4 clients x 4 threads, 90% reads (fewer in the repeat runs: {@link TestScale}). */
    @Test
    @Timeout(180)
    void writersExcludeEveryoneUnderMixedLoad() throws Exception {
        int total = TestScale.of(50_000);
        ExclusionChecker writers = new ExclusionChecker(1);
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicLong writerOverlaps = new AtomicLong();
        AtomicInteger mostReaders = new AtomicInteger();
        AtomicLong operations = new AtomicLong();
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            RedisLockClient worker = newClient(Duration.ofSeconds(30));
            for (int t = 0; t < 4; t++) {
                workers.add(pool.submit(() -> {
                    ReadWriteDistributedLock doc = worker.getReadWriteLock("doc:mixed");
                    while (operations.incrementAndGet() <= total) {
                        boolean writing = java.util.concurrent.ThreadLocalRandom.current().nextInt(10) == 0;
                        ReentrantDistributedLock side = writing ? doc.writeLock() : doc.readLock();
                        if (!side.tryLock(10, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("starved");
                        }
                        try {
                            if (writing) {
                                if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                                    writerOverlaps.incrementAndGet();
                                }
                                writers.criticalSection(0);
                                writersInside.decrementAndGet();
                            }
                            else {
                                int readers = readersInside.incrementAndGet();
                                mostReaders.accumulateAndGet(readers, Math::max);
                                if (writersInside.get() != 0) {
                                    writerOverlaps.incrementAndGet();
                                }
                                Thread.yield(); // a moment inside, for another reader or a writer to meet
                                readersInside.decrementAndGet();
                            }
                        }
                        finally {
                            side.unlock();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(170, TimeUnit.SECONDS);
        }
        assertThat(writers.sections()).as("writes happened").isGreaterThan(total / 25);
        assertThat(writerOverlaps.get()).as("a writer with anyone else inside").isZero();
        assertThat(writers.overlaps()).isZero();
        assertThat(writers.lostUpdates()).isZero();
        assertThat(mostReaders.get()).as("readers did share").isGreaterThan(1);
    }

    @Test
    void clientsWithMinReplicasRefuseReadWriteLocksForNow() {
        // the check needs no replica to answer: the client is only built, never asked to lock
        RedisLockClient waitsForReplicas = RedisLockClient.builder(redis.connectionFactory()).minReplicas(1).build();
        clients.add(waitsForReplicas);
        assertThatThrownBy(() -> waitsForReplicas.getReadWriteLock("doc:15"))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("minReplicas");
    }
}
