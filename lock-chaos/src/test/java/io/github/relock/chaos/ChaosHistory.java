package io.github.relock.chaos;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * Every event of a run in one place: the client JVMs' lines as they arrive, and the parent's own (fault
 * windows, probes). Read by the checkers once the run is over.
 */
final class ChaosHistory {

    private final ConcurrentLinkedQueue<Record> events = new ConcurrentLinkedQueue<>();
    private final AtomicLong malformed = new AtomicLong();
    private final List<Consumer<Ev.Closed>> closeListeners = new ArrayList<>();
    private volatile long start = System.nanoTime();

    /** When the run started: the zero of the times the history prints. */
    void start(long nanos) {
        start = nanos;
    }

    long start() {
        return start;
    }

    /** Told of every client close as it arrives (the parent then looks into Redis a little later). */
    void onClosed(Consumer<Ev.Closed> listener) {
        closeListeners.add(listener);
    }

    /** A line of a client JVM's stdout; lines that are not events are ignored. */
    void line(String line) {
        if (!line.startsWith(Ev.PREFIX)) {
            return;
        }
        try {
            add(Ev.parse(line));
        }
        catch (RuntimeException ex) {
            malformed.incrementAndGet();
        }
    }

    void add(Record event) {
        events.add(event);
        if (event instanceof Ev.Closed closed) {
            closeListeners.forEach(listener -> listener.accept(closed));
        }
    }

    long malformed() {
        return malformed.get();
    }

    <T extends Record> List<T> all(Class<T> type) {
        List<T> found = new ArrayList<>();
        for (Record event : events) {
            if (type.isInstance(event)) {
                found.add(type.cast(event));
            }
        }
        return found;
    }

    <T extends Record> List<T> sorted(Class<T> type, ToLongFunction<T> time) {
        List<T> found = all(type);
        found.sort(Comparator.comparingLong(time));
        return found;
    }

    /**
     * Writes the whole history, one event per line in time order, next to the report
     * ({@code target/chaos/<seed>-<label>.events}): the minimal histories are cut from it.
     */
    void dump(String label, long seed) {
        Path file = Path.of(System.getProperty("relock.chaos.report", "target/fault-schedule-report.md"))
                .toAbsolutePath().getParent().resolve("chaos").resolve(seed + "-" + label.replaceAll("[^a-z]+", "-")
                        + ".events");
        List<Record> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Ev::instant));
        try {
            Files.createDirectories(file.getParent());
            try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                for (Record event : sorted) {
                    out.write(at(Ev.instant(event)) + " " + Ev.line(event).substring(Ev.PREFIX.length()));
                    out.newLine();
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not write " + file, ex);
        }
    }

    /** An instant as the history prints it: seconds since the run started. */
    String at(long nanos) {
        return String.format(Locale.ROOT, "+%.3fs", (nanos - start) / 1e9);
    }
}
