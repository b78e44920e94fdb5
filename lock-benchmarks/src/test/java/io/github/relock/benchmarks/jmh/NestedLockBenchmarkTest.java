package io.github.relock.benchmarks.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** The JMH benchmark runs, in this JVM and briefly: its set-up, its five methods and its tear-down work. */
@Timeout(120)
class NestedLockBenchmarkTest {

    @Test
    void everyBenchmarkRuns() throws Exception {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(NestedLockBenchmark.class.getSimpleName())
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(300))
                .shouldFailOnError(true)
                .build()).run();
        Set<String> ran = results.stream().map(r -> r.getParams().getBenchmark().replaceAll(".*\\.", ""))
                .collect(Collectors.toSet());
        assertEquals(Set.of("payWithLockedReserve", "payWithPlainReserve", "whileHeldLockedReserve",
                "whileHeldPlainReserve", "whileHeldLockUnlock"), ran);
        results.forEach(r -> assertTrue(r.getPrimaryResult().getScore() > 0, r.getParams().getBenchmark()));
    }
}
