package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.relock.test.ChildJvm;

/**
 * Reads a child JVM's stdout on one thread, in order: lines starting with {@code streamPrefix} go to a
 * handler as they arrive (e.g. {@code WRITE}s applied to a fenced resource); every other line is kept
 * for {@link #await}.
 */
public final class ChildEvents implements AutoCloseable {

    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private volatile boolean closed;

    public ChildEvents(ChildJvm child, String streamPrefix, Consumer<String> handler) {
        reader = new Thread(() -> {
            while (!closed) {
                String line;
                try {
                    line = child.awaitLine(l -> true, Duration.ofSeconds(1));
                }
                catch (IllegalStateException ex) {
                    if (!child.isAlive()) {
                        return; // lines printed before the exit were all returned before this
                    }
                    continue; // nothing printed within a second
                }
                if (line.startsWith(streamPrefix)) {
                    handler.accept(line);
                }
                else {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            }
        }, "child-events-" + child.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Takes (removes) the first kept line that starts with {@code prefix}, waiting up to {@code timeout}. */
    public String await(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                    String line = it.next();
                    if (line.startsWith(prefix)) {
                        it.remove();
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("no line starting with '" + prefix + "' within " + timeout
                            + "; kept lines: " + lines);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lines, left);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
