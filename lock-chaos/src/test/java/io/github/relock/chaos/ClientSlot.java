package io.github.relock.chaos;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Collectors;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.Factories;

/**
 * What a client JVM's drivers use right now: the connection factory (standalone through the chaos proxy,
 * or Sentinel), the programmatic client and the annotated application context. Drivers run each operation
 * under a shared lock; replacing a client or switching the topology takes it exclusively, so a close never
 * cuts an operation short. Every close is reported with the relock threads still alive after it.
 */
final class ClientSlot {

    private static final long QUIESCE_MILLIS = 10_000;
    /** At stop: how long drivers get to finish before the clients close under the ones still waiting. */
    private static final long FINISH_MILLIS = 3_000;

    private final int jvm;
    private final int locks;
    private final boolean brokenClose;
    private final Factories factories = new Factories();
    private final ReentrantReadWriteLock quiesce = new ReentrantReadWriteLock();
    /** What each driver thread is doing and since when, for the threads that do not stop. */
    private final Map<Thread, String> doing = new ConcurrentHashMap<>();
    private final Map<Thread, Long> since = new ConcurrentHashMap<>();
    private volatile boolean stopping;
    private LettuceConnectionFactory lettuce;
    private RedisConnectionFactory flaky;
    private int minReplicas;
    private volatile RedisLockClient client;
    private volatile ConfigurableApplicationContext context;
    private volatile AnnotatedWork work;

    ClientSlot(int jvm, int locks, boolean brokenClose) {
        this.jvm = jvm;
        this.locks = locks;
        this.brokenClose = brokenClose;
    }

    /** {@code standalone:<port>} or {@code sentinel:<master>:<host:port>,<host:port>,...} (then minReplicas 1). */
    void connect(String topology) {
        String[] parts = topology.split(":", 3);
        if (parts[0].equals("standalone")) {
            lettuce = factories.standalone(Integer.parseInt(parts[1]), commandTimeout());
            minReplicas = 0;
        }
        else {
            Set<String> sentinels = Arrays.stream(parts[2].split(",")).collect(Collectors.toSet());
            lettuce = factories.sentinel(parts[1], sentinels, commandTimeout());
            minReplicas = 1;
        }
        flaky = new FlakyConnectionFactory(lettuce);
        client = newClient();
        context = AnnotatedContext.start(flaky, jvm, minReplicas);
        work = context.getBean(AnnotatedWork.class);
    }

    private static Duration commandTimeout() {
        return Duration.ofMillis(Timing.COMMAND_TIMEOUT_MILLIS);
    }

    RedisLockClient client() {
        return client;
    }

    AnnotatedWork work() {
        return work;
    }

    boolean stopping() {
        return stopping;
    }

    /** Runs one driver operation; an exception the driver did not expect is recorded, not fatal. */
    void op(String what, Runnable action) {
        quiesce.readLock().lock();
        Thread thread = Thread.currentThread();
        doing.put(thread, what);
        since.put(thread, System.nanoTime());
        try {
            action.run();
        }
        catch (RuntimeException ex) {
            long now = System.nanoTime();
            Out.emit(new Ev.Op(jvm, Ids.op(jvm), "DRIVER", "-", now, now, -1, "error:" + ex.getClass().getSimpleName(),
                    "-"));
        }
        finally {
            doing.remove(thread);
            quiesce.readLock().unlock();
        }
    }

    /**
     * Closes the programmatic client and puts a new one in its place; half the time the closing thread first
     * takes a lock that it still holds when it closes (close() must stop renewing it).
     */
    void closeAndReplace(Random random) {
        quiesce.writeLock().lock();
        try {
            if (stopping) {
                return;
            }
            RedisLockClient old = client;
            ReentrantDistributedLock lock = old.getLock("L:k" + random.nextInt(locks));
            HeldAtClose held = random.nextBoolean() ? holdForClose(old, lock) : null;
            long invoke = close(old, held != null ? held.holder().key : "-");
            if (held != null) {
                held.holder().section(0, held.invoke(), held.enter(), invoke, 1, "prog", "closed", held.opId());
            }
            client = newClient();
        }
        finally {
            quiesce.writeLock().unlock();
        }
    }

    /** A lock the closing thread took and still holds when it closes its client. */
    private record HeldAtClose(Holder holder, long invoke, long enter, String opId) {
    }

    private HeldAtClose holdForClose(RedisLockClient old, ReentrantDistributedLock lock) {
        String opId = Ids.op(jvm);
        long invoke = System.nanoTime();
        String result;
        try {
            result = lock.tryLock(200, TimeUnit.MILLISECONDS) ? "acquired" : "not-acquired";
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            result = "interrupted";
        }
        catch (RuntimeException ex) {
            result = "error:" + ex.getClass().getSimpleName();
        }
        long enter = System.nanoTime();
        Out.emit(new Ev.Op(jvm, opId, "TRY_LOCK_WAIT", lock.getKey(), invoke, enter, 200, result, "-"));
        return result.equals("acquired")
                ? new HeldAtClose(Holder.programmatic(jvm, old, lock, null), invoke, enter, opId) : null;
    }

    /**
     * Waits until no driver is inside an operation (nor an async body running) and keeps them out: the first
     * half of a topology switch, done in every JVM before any of them moves on (the calling thread keeps the
     * drivers out until {@link #switchTo}).
     */
    void quiesce() throws InterruptedException {
        if (!quiesce.writeLock().tryLock(Timing.STALL_MILLIS, TimeUnit.MILLISECONDS)) {
            // a driver that does not come out of its operation is a stall: record it, and close the clients,
            // which wakes threads waiting for a lock, so that the switch can go on
            reportStuck(doing.keySet());
            closeAll();
            quiesce.writeLock().lock();
        }
        awaitAsyncBodies();
    }

    /** After {@link #quiesce()}, on the same thread: closes both clients, connects both to the new topology. */
    void switchTo(String topology) {
        try {
            if (!client.isClosed()) {
                closeAll();
            }
            lettuce.destroy();
            connect(topology);
        }
        finally {
            quiesce.writeLock().unlock();
        }
    }

    /**
     * Stops the drivers: each finishes its operation; the clients are closed (which wakes threads still
     * waiting for a lock), and threads still running after that are reported stuck.
     */
    void stop(List<Thread> drivers) {
        stopping = true;
        Work.stop();
        join(drivers, System.nanoTime() + Timing.nanos(FINISH_MILLIS));
        awaitAsyncBodies();
        closeAll();
        join(drivers, System.nanoTime() + Timing.nanos(QUIESCE_MILLIS));
        reportStuck(drivers.stream().filter(Thread::isAlive).toList());
    }

    private void reportStuck(java.util.Collection<Thread> threads) {
        for (Thread driver : threads) {
            Long from = since.get(driver);
            String top = Arrays.stream(driver.getStackTrace()).limit(12).map(StackTraceElement::toString)
                    .collect(Collectors.joining("<"));
            Out.emit(new Ev.Stuck(jvm, driver.getName(), from == null ? 0 : from, doing.get(driver) + "@" + top));
        }
    }

    private void closeAll() {
        close(client, "-");
        RedisLockClient starters = context.getBean(RedisLockClient.class);
        report(starters.getClientId(), context::close, "-");
    }

    /** Closes a programmatic client (the broken control leaks on close); returns when close() was invoked. */
    private long close(RedisLockClient closing, String heldKey) {
        return report(closing.getClientId(), () -> {
            if (brokenClose) {
                BrokenClose.leakOnClose(closing);
            }
            closing.close();
        }, heldKey);
    }

    private long report(String clientId, Runnable closer, String heldKey) {
        long invoke = System.nanoTime();
        closer.run();
        long ret = System.nanoTime();
        String threads = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(name -> name.contains(clientId)).collect(Collectors.joining(","));
        Out.emit(new Ev.Closed(jvm, clientId, invoke, ret, threads.isEmpty() ? "-" : threads, heldKey));
        return invoke;
    }

    /** A new programmatic client; building one asks Redis once, which a pool fault may refuse for a moment. */
    private RedisLockClient newClient() {
        long deadline = System.nanoTime() + Timing.nanos(QUIESCE_MILLIS);
        while (true) {
            try {
                RedisLockClient.Builder builder = RedisLockClient.builder(flaky)
                        .watchdogTimeout(Duration.ofMillis(Timing.WATCHDOG_MILLIS))
                        .lockLostListener(new FaultyListener(jvm));
                if (minReplicas > 0) {
                    builder.minReplicas(minReplicas).replicaAckTimeout(Duration.ofMillis(Timing.REPLICA_ACK_MILLIS));
                }
                return builder.build();
            }
            catch (PoolException ex) {
                if (System.nanoTime() - deadline > 0) {
                    throw ex;
                }
                LockSupport.parkNanos(Timing.nanos(50));
            }
        }
    }

    private static void awaitAsyncBodies() {
        long deadline = System.nanoTime() + Timing.nanos(QUIESCE_MILLIS);
        while (AnnotatedWork.ACTIVE_BODIES.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(Timing.nanos(20));
        }
    }

    private static void join(List<Thread> threads, long deadline) {
        for (Thread thread : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                try {
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
