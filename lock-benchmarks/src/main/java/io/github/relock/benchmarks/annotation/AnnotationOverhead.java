package io.github.relock.benchmarks.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.HdrHistogram.Histogram;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

import io.github.relock.benchmarks.report.AnnotationResult;
import io.github.relock.benchmarks.report.Report;
import io.github.relock.benchmarks.support.CpuTime;
import io.github.relock.benchmarks.workloads.RunContext;
import io.github.relock.spring.LockKeyResolver;

/**
 * What {@code @DistributedLock} costs on top of the same lock taken through the API: both sides take
 * and release one uncontended lock per call, on one thread, against the same Redis.
 *
 * <p>On a shared machine a call now and then loses its core for milliseconds, which swamps a difference
 * of a few microseconds in any average. So the two sides alternate call by call (which goes first
 * alternates too), every call is timed, and the headline is the ratio of the two <em>medians</em>: a
 * preempted call moves a median hardly at all. CPU time per call (every thread of the JVM, summed per
 * round) is given beside it, and SpEL key resolution is also timed alone.
 *
 * <p>A careful loop rather than JMH: it runs inside the same single command as the rest, and the
 * quantity is a ratio of two ~100 µs operations that pairing resolves well.
 */
public final class AnnotationOverhead {

    private static final String KEY = "42";
    private static final long HIGHEST_NANOS = 10_000_000_000L;

    private AnnotationOverhead() {
    }

    public static void run(RunContext context, Report report) {
        AnnotationContext.redis = new RedisStandaloneConfiguration(context.target().host(), context.target().port());
        context.admin().flushAll();
        try (AnnotationConfigApplicationContext spring = new AnnotationConfigApplicationContext(AnnotationContext.class)) {
            LockedWork work = spring.getBean(LockedWork.class);
            LockKeyResolver resolver = spring.getBean(LockKeyResolver.class);
            if (work.getClass() == LockedWork.class || !AopProxyUtils.ultimateTargetClass(work).equals(LockedWork.class)) {
                throw new IllegalStateException("LockedWork is not proxied: the aspect would not run");
            }
            measure(context.options().annotationDuration(), work, resolver, report);
        }
        catch (Exception ex) {
            report.note("Annotation overhead: failed: " + ex);
            ex.printStackTrace(System.err);
        }
    }

    private static void measure(Duration duration, LockedWork work, LockKeyResolver resolver, Report report)
            throws Exception {
        // warm-up both paths; it also tells how many calls fit in the time given
        long warmNanos = Math.min(2_000_000_000L, duration.toNanos() / 4);
        long warm = System.nanoTime();
        int warmPairs = 0;
        while (System.nanoTime() - warm < warmNanos) {
            work.annotated(KEY);
            work.direct(KEY);
            warmPairs++;
        }
        double pairsPerSecond = warmPairs / (warmNanos / 1e9);
        long wallPairs = Math.max(100, (long) (pairsPerSecond * duration.toMillis() / 1000.0 * 2 / 3));
        int rounds = 10;
        int pairs = (int) Math.max(10, pairsPerSecond * duration.toMillis() / 1000.0 / 3 / rounds);

        // wall time: the sides alternate call by call, and which goes first alternates too
        Histogram direct = new Histogram(HIGHEST_NANOS, 3);
        Histogram annotated = new Histogram(HIGHEST_NANOS, 3);
        for (long i = 0; i < wallPairs; i++) {
            if ((i & 1) == 0) {
                direct.recordValue(Math.min(timeOne(() -> work.direct(KEY)), HIGHEST_NANOS));
                annotated.recordValue(Math.min(timeOne(() -> work.annotated(KEY)), HIGHEST_NANOS));
            }
            else {
                annotated.recordValue(Math.min(timeOne(() -> work.annotated(KEY)), HIGHEST_NANOS));
                direct.recordValue(Math.min(timeOne(() -> work.direct(KEY)), HIGHEST_NANOS));
            }
        }

        // CPU time: reading it costs tens of microseconds, so it is read per block of calls, not per call;
        // blocks alternate, and each round's ratio is paired
        List<Double> directCpu = new ArrayList<>();
        List<Double> annotatedCpu = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            double d;
            double a;
            if ((round & 1) == 0) {
                d = cpuPerCall(pairs, () -> work.direct(KEY));
                a = cpuPerCall(pairs, () -> work.annotated(KEY));
            }
            else {
                a = cpuPerCall(pairs, () -> work.annotated(KEY));
                d = cpuPerCall(pairs, () -> work.direct(KEY));
            }
            directCpu.add(d);
            annotatedCpu.add(a);
            cpuRatios.add(a / d);
        }

        Method method = LockedWork.class.getMethod("annotated", String.class);
        Object[] arguments = {KEY};
        for (int i = 0; i < 200_000; i++) {
            resolver.resolve("#orderId", method, arguments, work, LockedWork.class);
        }
        List<Double> spel = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            int n = 50_000;
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                if (resolver.resolve("#orderId", method, arguments, work, LockedWork.class) == null) {
                    throw new IllegalStateException("key resolved to null");
                }
            }
            spel.add((System.nanoTime() - start) / (double) n);
        }

        double directP50 = direct.getValueAtPercentile(50);
        double annotatedP50 = annotated.getValueAtPercentile(50);
        report.add(new AnnotationResult("direct API: getLock + tryLock(5 s) + unlock", directP50, direct.getMean(), 1.0,
                median(directCpu), 1.0));
        report.add(new AnnotationResult("@DistributedLock(name = \"bench\", key = \"#orderId\") method", annotatedP50,
                annotated.getMean(), annotatedP50 / directP50, median(annotatedCpu), median(cpuRatios)));
        report.add(new AnnotationResult("aspect overhead (annotated − direct)", annotatedP50 - directP50,
                annotated.getMean() - direct.getMean(), Double.NaN, median(annotatedCpu) - median(directCpu), Double.NaN));
        report.add(new AnnotationResult("SpEL key resolution alone (#orderId)", median(spel), Collections.min(spel),
                Double.NaN, Double.NaN, Double.NaN));
        report.describe("annotation: one thread, one uncontended key, after " + warmNanos / 1_000_000 + " ms of warm-up. Wall: " + wallPairs
                + " direct and annotated calls alternating one by one (which goes first alternates), median and mean "
                + "per call. CPU: all JVM threads, " + rounds + " alternating blocks of " + pairs
                + " calls per side, median per call and median of the paired ratios. SpEL row: mean and best of "
                + rounds + " rounds of 50,000 resolutions");
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    private static long timeOne(Call call) throws Exception {
        long start = System.nanoTime();
        call.run();
        return System.nanoTime() - start;
    }

    private static double cpuPerCall(int calls, Call call) throws Exception {
        CpuTime.Snapshot start = CpuTime.snapshot();
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        return CpuTime.snapshot().cpuSince(start) / (double) calls;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
