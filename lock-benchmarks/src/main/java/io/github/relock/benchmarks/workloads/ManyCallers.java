package io.github.relock.benchmarks.workloads;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

import org.HdrHistogram.ConcurrentHistogram;
import org.redisson.Redisson;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.RedisTarget;
import io.github.relock.benchmarks.redis.MonitorTap;
import io.github.relock.benchmarks.report.CallersResult;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * W7: many callers, few keys. 10,000 callers (by default) take locks on 100 keys, each holding 1 ms, over and over:
 * relock's asynchronous calls in Reactor (and a candidate build's, if one is given), Redisson's {@code RLockReactive}, relock's blocking calls on
 * virtual threads (JDK 21+) and on a 200-thread pool. What it shows is what a waiter costs: threads,
 * heap, and whether acquisitions keep flowing when most callers wait.
 */
public final class ManyCallers {

    static final int KEYS = 100;
    static final Duration HOLD = Duration.ofMillis(1);
    static final Duration WAIT = Duration.ofSeconds(60);
    static final Duration LEASE = Duration.ofSeconds(10);

    /** One caller's lock call: take, then give back; both complete without blocking a thread. */
    interface Caller {
        Mono<Boolean> acquire();

        Mono<Void> release();
    }

    private final int callers;

    public ManyCallers(int callers) {
        this.callers = callers;
    }

    /**
     * The four variants; with a candidate build among {@code relocks}, its reactive variant too, measured the same way.
     *
     * @param relocks relock and, if given, the candidate: the libraries whose asynchronous calls run in Reactor
     */
    public List<CallersResult> run(RunContext context, List<LockLibrary> relocks) {
        List<CallersResult> results = new ArrayList<>();
        for (LockLibrary relock : relocks) {
            results.add(measure(relock.id() + " reactive", context, (target, stats) -> reactive(relock, target, stats)));
        }
        results.add(measure("redisson reactive", context, this::redissonReactive));
        results.add(measure("relock virtual threads", context, this::relockVirtual));
        results.add(measure("relock 200-thread pool", context, this::relockPool));
        return results;
    }

    /** Starts the callers; returns what stops them and waits until every held lock is given back. */
    interface Variant {
        AutoCloseable start(RedisTarget target, Stats stats) throws Exception;
    }

    /** Counters every variant feeds. */
    static final class Stats {
        final ConcurrentHistogram waits = new ConcurrentHistogram(TimeUnit.SECONDS.toMicros(120), 3);
        final LongAdder acquired = new LongAdder();
        final LongAdder failed = new LongAdder();
        volatile boolean running = true;

        void acquired(long wantedNanos) {
            waits.recordValue(Math.max(0, (System.nanoTime() - wantedNanos) / 1_000));
            acquired.increment();
        }

        void reset() {
            waits.reset();
            acquired.reset();
        }
    }

    private CallersResult measure(String variant, RunContext context, Variant start) {
        context.settle();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        threads.resetPeakThreadCount();
        int before = threads.getThreadCount();
        Stats stats = new Stats();
        try (AutoCloseable running = start.start(context.target(), stats)) {
            sleep(context.options().warmup());
            stats.reset();
            long started = System.nanoTime();
            sleep(context.options().duration());
            double seconds = (System.nanoTime() - started) / 1e9;
            long acquisitions = stats.acquired.sum();
            long p99 = stats.waits.getValueAtPercentile(99);
            long max = stats.waits.getMaxValue();
            long acquiredBefore = stats.acquired.sum();
            long clientCommands;
            try (MonitorTap tap = MonitorTap.attach(context.target())) {
                sleep(context.options().countDuration());
                tap.close();
                clientCommands = tap.clientTotal();
            }
            long counted = stats.acquired.sum() - acquiredBefore;
            System.gc(); // with every caller still in flight: what 10,000 of them cost
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            int peak = threads.getPeakThreadCount();
            return new CallersResult(variant, callers, acquisitions / seconds, p99, max, peak, peak - before, heap,
                    counted == 0 ? Double.NaN : (double) clientCommands / counted, stats.failed.sum(), "");
        }
        catch (UnsupportedOperationException ex) {
            return CallersResult.skipped(variant, ex.getMessage());
        }
        catch (Exception ex) {
            return CallersResult.skipped(variant, "failed: " + ex);
        }
    }

    /** A library's asynchronous calls ({@link LockLibrary.LockClient#asyncLock}), one owner per caller, on one client. */
    private AutoCloseable reactive(LockLibrary library, RedisTarget target, Stats stats) {
        if (!library.hasAsyncLocks()) {
            throw new UnsupportedOperationException(library.id() + " has no asynchronous lock");
        }
        LockLibrary.LockClient client = library.connect(target, null);
        return reactive(stats, caller -> {
            LockLibrary.AsyncLock lock = client.asyncLock("w7-" + caller % KEYS);
            return new Caller() {
                public Mono<Boolean> acquire() {
                    return Mono.fromCompletionStage(() -> lock.tryLock(WAIT, LEASE));
                }

                public Mono<Void> release() {
                    return Mono.fromCompletionStage(lock::unlock);
                }
            };
        }, client::close);
    }

    private AutoCloseable redissonReactive(RedisTarget target, Stats stats) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + target.host() + ":" + target.port());
        RedissonClient redisson = Redisson.create(config);
        RLockReactive[] locks = new RLockReactive[KEYS];
        for (int i = 0; i < KEYS; i++) {
            locks[i] = redisson.reactive().getLock("w7-" + i);
        }
        return reactive(stats, caller -> {
            RLockReactive lock = locks[caller % KEYS];
            long id = caller + 1; // Redisson's reactive locks name their owner by a number
            return new Caller() {
                public Mono<Boolean> acquire() {
                    return lock.tryLock(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS, id);
                }

                public Mono<Void> release() {
                    return lock.unlock(id);
                }
            };
        }, redisson::shutdown);
    }

    /** Runs every caller as an endless non-blocking loop: take, hold {@link #HOLD}, give back, again. */
    private AutoCloseable reactive(Stats stats, IntFunction<Caller> newCaller, Runnable close) {
        Scheduler holding = Schedulers.newSingle("w7-hold", true);
        CountDownLatch stopped = new CountDownLatch(callers);
        for (int i = 0; i < callers; i++) {
            loop(newCaller.apply(i), stats, holding, stopped);
        }
        return () -> {
            stats.running = false;
            stopped.await(30, TimeUnit.SECONDS);
            holding.dispose();
            close.run();
        };
    }

    private static void loop(Caller caller, Stats stats, Scheduler holding, CountDownLatch stopped) {
        if (!stats.running) {
            stopped.countDown();
            return;
        }
        long wanted = System.nanoTime();
        caller.acquire().flatMap(acquired -> {
            if (!acquired) {
                return Mono.error(new IllegalStateException("not acquired in " + WAIT));
            }
            stats.acquired(wanted);
            return Mono.delay(HOLD, holding).then(caller.release());
        }).subscribe(null, failure -> {
            stats.failed.increment();
            loop(caller, stats, holding, stopped);
        }, () -> loop(caller, stats, holding, stopped));
    }

    private AutoCloseable relockVirtual(RedisTarget target, Stats stats) throws Exception {
        ExecutorService virtual;
        try {
            virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        }
        catch (NoSuchMethodException ex) {
            throw new UnsupportedOperationException("virtual threads need JDK 21+; this run is on "
                    + Runtime.version().feature());
        }
        return blocking(target, stats, virtual, true);
    }

    private AutoCloseable relockPool(RedisTarget target, Stats stats) {
        return blocking(target, stats, Executors.newFixedThreadPool(200), false);
    }

    /**
     * The blocking calls: with a thread per caller (virtual) each caller loops on its own thread; on a pool,
     * each acquisition is a task that submits the caller's next one, and its wait counts from submission.
     */
    private AutoCloseable blocking(RedisTarget target, Stats stats, ExecutorService executor, boolean own) {
        LettuceConnectionFactory factory = factory(target);
        RedisLockClient client = RedisLockClient.builder(factory).build();
        for (int i = 0; i < callers; i++) {
            ReentrantDistributedLock lock = client.getLock("w7-" + i % KEYS);
            if (own) {
                executor.execute(() -> {
                    while (stats.running) {
                        once(lock, stats, System.nanoTime());
                    }
                });
            }
            else {
                submit(executor, lock, stats);
            }
        }
        return () -> {
            stats.running = false;
            executor.shutdown();
            executor.awaitTermination(60, TimeUnit.SECONDS);
            client.close();
            factory.destroy();
        };
    }

    private static void submit(ExecutorService pool, ReentrantDistributedLock lock, Stats stats) {
        long wanted = System.nanoTime();
        pool.execute(() -> {
            once(lock, stats, wanted);
            if (stats.running) {
                try {
                    submit(pool, lock, stats);
                }
                catch (RejectedExecutionException runOver) {
                    // the run ended between the look at running and this caller's next call
                }
            }
        });
    }

    private static void once(ReentrantDistributedLock lock, Stats stats, long wanted) {
        try {
            if (!lock.tryLock(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
                stats.failed.increment();
                return;
            }
            stats.acquired(wanted);
            try {
                Thread.sleep(HOLD.toMillis());
            }
            finally {
                lock.unlock();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (RuntimeException ex) {
            stats.failed.increment();
        }
    }

    private static LettuceConnectionFactory factory(RedisTarget target) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(target.host(), target.port()));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    private static void sleep(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }
}
