package io.github.relock.core.reliability;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The real run of a scenario that goes in phases, one test each (unlock, close(), JVM exit, ...): what
 * each phase found, in the words of the report, and how many trials and violations it counted. A phase
 * records before it asserts, so a failing phase still shows in the report.
 */
final class Phases {

    private record Phase(String figures, long trials, long violations) {
    }

    private final List<String> required;
    private final Map<String, Phase> recorded = new LinkedHashMap<>();

    /** @param required the phases the report needs; others (such as one a JDK cannot run) are optional */
    Phases(String... required) {
        this.required = List.of(required);
    }

    synchronized void record(String phase, String figures, long trials, long violations) {
        recorded.put(phase, new Phase(figures, trials, violations));
    }

    synchronized boolean complete() {
        return recorded.keySet().containsAll(required);
    }

    /** What a phase found, or {@code otherwise} if it did not run. */
    synchronized String figures(String phase, String otherwise) {
        Phase found = recorded.get(phase);
        return found == null ? otherwise : found.figures();
    }

    /** The figures of the phases that ran, in the order given, joined with "; ". */
    synchronized String joined(String... phases) {
        return Stream.of(phases).filter(recorded::containsKey).map(p -> recorded.get(p).figures())
                .collect(Collectors.joining("; "));
    }

    synchronized long trials() {
        return recorded.values().stream().mapToLong(Phase::trials).sum();
    }

    synchronized long violations() {
        return recorded.values().stream().mapToLong(Phase::violations).sum();
    }
}
