package io.github.relock.benchmarks.workloads;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.AsyncLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;
import io.github.relock.benchmarks.report.WaitersResult;
import io.github.relock.benchmarks.report.WaitersResult.Subscriptions;

/**
 * S2 of the {@code scale} group: many waiters, and the harness's measure of wake-up delay after a release. {@code waiters} asynchronous waiters (10,000 by default) on
 * {@code keys} keys (1,000), spread over {@code clients} clients so that each key's waiters sit on different
 * clients and a release must reach them through pub/sub. All call at once; each, once it holds its key, keeps it
 * {@code hold} (50 ms by default, a timer, no blocked thread), releases it and is done. Measured: the wake-up delay of
 * every acquisition that followed a release (from the release completing to the acquisition completing), waiters
 * that overslept their wait time, connections in pub/sub mode during the run, and the server's subscriptions
 * before and after. An unrecorded round of at most {@value #WARM_WAITERS} waiters runs first, so that every library
 * is measured with its code compiled. Bounded: the waiters get {@link #WAIT} and each round gives up {@link #GRACE}
 * after that.
 */
public final class ManyWaiters {

    /**
     * Waiters of the unrecorded warm-up round, on proportionally fewer keys: enough calls that the JIT has compiled
     * the wait and wake-up paths (a few thousand), so that the run measures them, not the interpreter.
     */
    static final int WARM_WAITERS = 2_000;
    static final Duration WAIT = Duration.ofSeconds(30);
    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration GRACE = Duration.ofSeconds(15);
    /** A timeout reported later than this after the wait time counts as oversleeping, like a late acquisition. */
    static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** Looks 100 ms apart that must agree before the subscriptions count as the baseline: a second unchanged. */
    static final int STABLE_LOOKS = 10;

    private final int waiters;
    private final int keys;
    private final int clients;
    private final Duration hold;
    private final Duration wait;

    public ManyWaiters(int waiters, int keys, int clients, Duration hold) {
        this(waiters, keys, clients, hold, WAIT);
    }

    ManyWaiters(int waiters, int keys, int clients, Duration hold, Duration wait) {
        if (keys > waiters) {
            throw new IllegalArgumentException("S2 needs at least as many waiters as keys: " + waiters + " < " + keys);
        }
        this.waiters = waiters;
        this.keys = keys;
        this.clients = clients;
        this.hold = hold;
        this.wait = wait;
    }

    public WaitersResult run(LockLibrary library, RunContext context) {
        if (!library.hasAsyncLocks()) {
            return WaitersResult.skipped(library.id(), "skipped: " + library.id() + " has no asynchronous lock");
        }
        context.settle();
        List<LockClient> open = new ArrayList<>();
        ScheduledExecutorService timers = daemonTimers("s2-hold");
        // the pub/sub looks are round trips of their own: on the holders' timer they would delay releases
        ScheduledExecutorService looks = daemonTimers("s2-pubsub-looks");
        try {
            for (int c = 0; c < clients; c++) {
                open.add(library.connect(context.target(), null));
            }
            String names = context.freshNames("s2");
            for (int c = 0; c < clients; c++) {
                warm(open.get(c), names + "-warm-" + c);
            }
            int warmWaiters = Math.min(waiters, WARM_WAITERS);
            Run warmUp = new Run(timers, warmWaiters, Math.max(1, (int) ((long) keys * warmWaiters / waiters)));
            warmUp.startAll(open, names + "-round0");
            if (!warmUp.done.await(wait.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS)) {
                return WaitersResult.skipped(library.id(), "the unrecorded warm-up round of " + warmWaiters
                        + " waiters did not finish: " + warmUp.done.getCount() + " left");
            }
            Subscriptions before = stableSubscriptions(context);
            PubSubSampler sampler = new PubSubSampler(context, looks);
            Run run = new Run(timers, waiters, keys);
            long started = System.nanoTime();
            run.startAll(open, names);
            boolean allDone = run.done.await(wait.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
            double seconds = (System.nanoTime() - started) / 1e9;
            int peak = sampler.stop();
            Subscriptions after = allDone ? settledSubscriptions(context, before) : context.admin().subscriptions();
            Histogram wakeUps = run.wakeUps();
            return new WaitersResult(library.id(), clients, waiters, keys, seconds, wakeUps.getTotalCount(),
                    wakeUps.getValueAtPercentile(50), wakeUps.getValueAtPercentile(99), wakeUps.getMaxValue(),
                    // the warm-up round's failures and overlaps count: exclusion must hold in every round
                    run.overslept.sum(), run.timedOut.sum(), run.failed.sum() + warmUp.failed.sum(), run.done.getCount(),
                    run.overlaps.sum() + warmUp.overlaps.sum(),
                    peak, before, after, run.firstFailure().isEmpty() ? warmUp.firstFailure() : run.firstFailure(), "");
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return WaitersResult.skipped(library.id(), "interrupted");
        }
        catch (Exception ex) {
            return WaitersResult.skipped(library.id(), "failed: " + ex);
        }
        finally {
            timers.shutdownNow();
            looks.shutdownNow();
            open.forEach(LockClient::close);
        }
    }

    /**
     * One contended wait per client before the baseline: the client's pub/sub connection and whatever it keeps
     * subscribed between waits exist already, and the code paths have run once.
     */
    private static void warm(LockClient client, String name) throws Exception {
        AsyncLock holder = client.asyncLock(name);
        AsyncLock waiter = client.asyncLock(name);
        if (!holder.tryLock(Duration.ZERO, LEASE).toCompletableFuture().get(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("warm-up lock " + name + " not free");
        }
        var waiting = waiter.tryLock(Duration.ofSeconds(10), LEASE).toCompletableFuture();
        Thread.sleep(100); // the waiter is subscribed and waiting when the release comes
        holder.unlock().toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (!waiting.get(15, TimeUnit.SECONDS)) {
            throw new IllegalStateException("warm-up waiter on " + name + " timed out");
        }
        waiter.unlock().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * The subscriptions once they stayed the same for {@link #STABLE_LOOKS} looks 100 ms apart, at most 6 s: an
     * unsubscribe may still be on its way, and a library may keep a channel subscribed a moment after its last
     * waiter left (relock for 500 ms), so the baseline counts only what stays between rounds.
     */
    private static Subscriptions stableSubscriptions(RunContext context) throws InterruptedException {
        Subscriptions last = context.admin().subscriptions();
        int same = 0;
        for (int i = 0; i < 60 && same < STABLE_LOOKS; i++) {
            Thread.sleep(100);
            Subscriptions now = context.admin().subscriptions();
            same = now.equals(last) ? same + 1 : 0;
            last = now;
        }
        return last;
    }

    /** The subscriptions once back at {@code baseline}, or as they are after 5 s. */
    private static Subscriptions settledSubscriptions(RunContext context, Subscriptions baseline)
            throws InterruptedException {
        Subscriptions now = context.admin().subscriptions();
        for (int i = 0; i < 100 && !now.equals(baseline); i++) {
            Thread.sleep(50);
            now = context.admin().subscriptions();
        }
        return now;
    }

    private static ScheduledExecutorService daemonTimers(String name) {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        timers.setRemoveOnCancelPolicy(true);
        return timers;
    }

    /** Most connections in pub/sub mode seen at once, looking every 20 ms. */
    private static final class PubSubSampler {

        private final RunContext context;
        private final java.util.concurrent.ScheduledFuture<?> task;
        private final AtomicInteger peak = new AtomicInteger();

        PubSubSampler(RunContext context, ScheduledExecutorService timers) {
            this.context = context;
            this.task = timers.scheduleWithFixedDelay(this::look, 0, 20, TimeUnit.MILLISECONDS);
        }

        private void look() {
            try {
                peak.accumulateAndGet(context.admin().pubSubConnections(), Math::max);
            }
            catch (RuntimeException ex) {
                // a missed look only makes the peak less exact; the next one comes 20 ms later
            }
        }

        int stop() {
            task.cancel(false);
            look(); // the state at the end counts too
            return peak.get();
        }
    }

    /** The waiters' shared record: one {@link KeyLog} per key and the counters. */
    private final class Run {

        final CountDownLatch done;
        private final int waiters;
        private final int keys;
        final LongAdder overslept = new LongAdder();
        final LongAdder timedOut = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder overlaps = new LongAdder();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final ScheduledExecutorService timers;
        private final KeyLog[] logs;
        private final long origin = System.nanoTime() - 1; // times are stored relative to it, so 0 means "none"

        Run(ScheduledExecutorService timers, int waiters, int keys) {
            this.timers = timers;
            this.waiters = waiters;
            this.keys = keys;
            this.done = new CountDownLatch(waiters);
            this.logs = new KeyLog[keys];
            int perKey = (waiters + keys - 1) / keys;
            for (int k = 0; k < keys; k++) {
                logs[k] = new KeyLog(perKey);
            }
        }

        /** All waiters call at once, on lock names {@code names-0} to {@code names-(keys-1)}. */
        void startAll(List<LockClient> open, String names) {
            for (int i = 0; i < waiters; i++) {
                int key = i % keys;
                // the n-th waiter of a key sits on client n mod clients, so releases cross clients
                start(open.get((i / keys) % open.size()).asyncLock(names + "-" + key), key);
            }
        }

        private void start(AsyncLock lock, int key) {
            long called = System.nanoTime();
            lock.tryLock(wait, LEASE).whenComplete((acquired, failure) -> {
                long now = System.nanoTime();
                long late = now - called - wait.toNanos();
                if (failure != null) {
                    failed(failure);
                    done.countDown();
                }
                else if (!acquired) {
                    timedOut.increment();
                    if (late > LATE_NANOS) {
                        overslept.increment();
                    }
                    done.countDown();
                }
                else {
                    if (late > 0) {
                        overslept.increment();
                    }
                    hold(lock, logs[key], now);
                }
            });
        }

        private void hold(AsyncLock lock, KeyLog log, long acquiredAt) {
            int turn = log.acquired(acquiredAt - origin);
            if (turn < 0) {
                overlaps.increment();
            }
            timers.schedule(() -> {
                log.releasing();
                lock.unlock().whenComplete((unused, failure) -> {
                    if (failure != null) {
                        failed(failure);
                    }
                    else if (turn >= 0) {
                        log.released(turn, System.nanoTime() - origin);
                    }
                    done.countDown();
                });
            }, hold.toNanos(), TimeUnit.NANOSECONDS);
        }

        private void failed(Throwable cause) {
            failed.increment();
            failure.compareAndSet(null, cause instanceof CompletionException && cause.getCause() != null
                    ? cause.getCause() : cause);
        }

        /** What the first failed call threw, or empty. */
        String firstFailure() {
            Throwable first = failure.get();
            return first == null ? "" : first.toString();
        }

        /** Wake-up delays in microseconds; read once every waiter is done (the latch orders the writes before). */
        Histogram wakeUps() {
            Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(120), 3);
            for (KeyLog log : logs) {
                log.wakeUps(histogram);
            }
            return histogram;
        }
    }

    /**
     * One key's turns: when its n-th holder got it and when that holder's release completed. The n-th
     * acquisition's wake-up delay runs from the (n-1)-th release, matched by turn rather than by "latest", since
     * an acquisition may complete before the callback of the release that freed it has run.
     */
    private static final class KeyLog {

        private final AtomicInteger turns = new AtomicInteger();
        private final AtomicBoolean holding = new AtomicBoolean();
        private final long[] acquiredAt;
        private final long[] releasedAt;

        KeyLog(int capacity) {
            acquiredAt = new long[capacity];
            releasedAt = new long[capacity];
        }

        /** This acquisition's turn, or -1 if the previous holder had not started to release (an overlap). */
        int acquired(long at) {
            if (!holding.compareAndSet(false, true)) {
                return -1;
            }
            int turn = turns.getAndIncrement();
            acquiredAt[turn] = at;
            return turn;
        }

        /** The holder is about to send its release: from here on the next acquisition is no overlap. */
        void releasing() {
            holding.set(false);
        }

        void released(int turn, long at) {
            releasedAt[turn] = at;
        }

        void wakeUps(Histogram into) {
            for (int n = 1; n < turns.get(); n++) {
                if (acquiredAt[n] != 0 && releasedAt[n - 1] != 0) {
                    // an acquisition seen before its release's callback ran counts as an instant wake-up
                    into.recordValue(Math.max(0, acquiredAt[n] - releasedAt[n - 1]) / 1_000);
                }
            }
        }
    }
}
