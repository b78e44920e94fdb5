package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * Runs one reliability scenario: its trials on the real lock, the same kind of trials on a deliberately broken
 * lock (the control, which the checker must catch), and the report row made from what both found.
 *
 * <p>A scenario class keeps one in an instance field and is {@code @TestInstance(PER_CLASS)}, so that its
 * ordered tests share the outcomes without static state. Its {@code @AfterAll} calls {@link #report}, which
 * writes the row only once both the real run and the control have run (a test that threw before its trials
 * returned leaves no row, and the failure speaks for itself).
 *
 * @param <R> what the trials on the real lock found
 * @param <C> what the control found
 */
final class ScenarioRunner<R, C> {

    /** Trials that yield an outcome. */
    @FunctionalInterface
    interface Trials<T> {
        T run() throws Exception;
    }

    private final String id;
    private final String name;
    private final Predicate<R> complete;
    private final long started = System.nanoTime();
    private @Nullable R real;
    private @Nullable C control;

    /**
     * @param id   the scenario's number in the report, e.g. "9"
     * @param name its short name in the report
     */
    ScenarioRunner(String id, String name) {
        this(id, name, null, real -> true);
    }

    private ScenarioRunner(String id, String name, @Nullable R real, Predicate<R> complete) {
        this.id = id;
        this.name = name;
        this.real = real;
        this.complete = complete;
    }

    /** A scenario whose real run is several tests, each recording its phase in {@code phases}. */
    static <C> ScenarioRunner<Phases, C> inPhases(String id, String name, Phases phases) {
        return new ScenarioRunner<>(id, name, phases, Phases::complete);
    }

    /** Runs the trials on the real lock and keeps what they found, so the row is written even if checks fail. */
    R real(Trials<R> trials) throws Exception {
        R found = trials.run();
        real = found;
        return found;
    }

    /** Runs the trials on the broken lock and keeps what they found. */
    C control(Trials<C> trials) throws Exception {
        C found = trials.run();
        control = found;
        return found;
    }

    /** Writes the scenario's row from both outcomes, if both ran (and, in phases, every phase did). */
    void report(String redisVersion, BiFunction<R, C, ReliabilityReport.Figures> figures) {
        R realFound = real;
        C controlFound = control;
        if (realFound == null || controlFound == null || !complete.test(realFound)) {
            return;
        }
        ReliabilityReport.write(id, name, figures.apply(realFound, controlFound),
                Duration.ofNanos(System.nanoTime() - started), redisVersion);
    }
}
