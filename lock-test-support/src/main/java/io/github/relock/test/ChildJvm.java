package io.github.relock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs a class's {@code main} in a second JVM on the current test classpath: a second "application
 * instance" that can be killed, frozen or talked to over stdin/stdout.
 *
 * <pre>{@code
 * try (ChildJvm child = ChildJvm.start(LockHolderMain.class, redis.uri())) {
 *     child.awaitLine(line -> line.equals("ACQUIRED"), Duration.ofSeconds(10));
 *     child.kill();   // the holder crashes without unlocking
 * }
 * }</pre>
 *
 * <p>stdout is collected line by line by a background thread; stderr is collected too and shown when an
 * await fails. The child is killed at JVM exit if it is still alive.
 */
public final class ChildJvm implements AutoCloseable {

    private static final int MAX_ARG_LENGTH = 100_000; // Linux rejects single arguments over 128 KiB

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final List<String> out = new ArrayList<>();
    private final List<String> err = new ArrayList<>();
    private final Thread outReader;
    private final Thread errReader;
    private boolean outClosed;
    private int cursor; // awaitLine continues after the line it matched last

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.outReader = reader(process.getInputStream(), out, true, "stdout");
        this.errReader = reader(process.getErrorStream(), err, false, "stderr");
    }

    /**
     * Starts {@code mainClass.main(args)} in a new JVM (same java binary, same classpath, same
     * {@code -Dredis.server.binary} if set).
     */
    public static ChildJvm start(Class<?> mainClass, String... args) {
        return start(List.of(), mainClass, args);
    }

    /** Like {@link #start(Class, String...)} with JVM options first, e.g. {@code List.of("-Xmx64m")}. */
    public static ChildJvm start(List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(jvmArgs);
        String binary = System.getProperty(RedisBinary.PROPERTY);
        if (binary != null && jvmArgs.stream().noneMatch(arg -> arg.startsWith("-D" + RedisBinary.PROPERTY + "="))) {
            command.add("-D" + RedisBinary.PROPERTY + "=" + binary); // a RedisServer in the child: same binary
        }
        command.addAll(classpathArgs());
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        try {
            return new ChildJvm(mainClass.getSimpleName(), ProcessRegistry.start(new ProcessBuilder(command)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** The child's pid. */
    public long pid() {
        return process.pid();
    }

    /**
     * Waits for the next stdout line that matches, like {@code expect}: the search starts after the line
     * the previous {@code awaitLine} returned, so awaiting the same text twice waits for two occurrences.
     *
     * @throws IllegalStateException with the output so far, on timeout or if the child exits first
     */
    public synchronized String awaitLine(Predicate<String> match, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (; cursor < out.size(); cursor++) {
                String line = out.get(cursor);
                if (match.test(line)) {
                    cursor++;
                    return line;
                }
            }
            if (outClosed) {
                throw failure("exited" + exitCode() + " before printing a matching line");
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw failure("printed no matching line within " + timeout.toMillis() + " ms");
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, remaining);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + name, e);
            }
        }
    }

    /** All stdout lines so far. */
    public synchronized List<String> lines() {
        return List.copyOf(out);
    }

    /** All stderr lines so far. */
    public synchronized List<String> errorLines() {
        return List.copyOf(err);
    }

    /** Writes one line to the child's stdin and flushes. */
    public void send(String line) {
        try {
            synchronized (stdin) {
                stdin.write(line);
                stdin.write('\n');
                stdin.flush();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + name + exitCode(), e);
        }
    }

    /** SIGKILL, as in a crash (no shutdown hooks run in the child); waits for the exit. */
    public void kill() {
        process.destroyForcibly();
        awaitExitQuietly(Duration.ofSeconds(10));
    }

    /** SIGSTOP: the child freezes (threads, timers, lease renewals) until {@link #resume()}. */
    public void pause() {
        Signals.stop(process.pid());
    }

    /** SIGCONT. */
    public void resume() {
        Signals.cont(process.pid());
    }

    /**
     * Waits for the child to exit and returns its exit code; after it returns, {@link #lines()} is complete.
     *
     * @throws IllegalStateException with the output so far, if it is still running after the timeout
     */
    public int awaitExit(Duration timeout) {
        if (!awaitExitQuietly(timeout)) {
            synchronized (this) {
                throw failure("did not exit within " + timeout.toMillis() + " ms");
            }
        }
        return process.exitValue();
    }

    /** True until the process has exited. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Kills the child if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    @Override
    public String toString() {
        return "ChildJvm[" + name + ", pid " + process.pid() + (process.isAlive() ? "" : ", exited") + "]";
    }

    // ---------------------------------------------------------------------------------------------

    private boolean awaitExitQuietly(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            outReader.join(1000); // so that lines() holds everything the child printed
            errReader.join(1000);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Thread reader(InputStream stream, List<String> sink, boolean isStdout, String which) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    synchronized (this) {
                        sink.add(line);
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // the pipe broke because the child died: same as EOF
            } finally {
                if (isStdout) {
                    synchronized (this) {
                        outClosed = true;
                        notifyAll();
                    }
                }
            }
        }, "child-jvm-" + which + "-" + process.pid());
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private String exitCode() {
        return process.isAlive() ? "" : " (exit code " + process.exitValue() + ")";
    }

    private IllegalStateException failure(String what) {
        return new IllegalStateException(this + " " + what
                + "\n  stdout (last 40 lines):\n" + lastLines(out)
                + "\n  stderr (last 40 lines):\n" + lastLines(err));
    }

    private static String lastLines(List<String> lines) {
        if (lines.isEmpty()) {
            return "    (nothing)";
        }
        return "    " + String.join("\n    ", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .filter(command -> Files.isExecutable(Path.of(command)))
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    // A huge classpath goes through an @argfile, which java reads itself (no OS argument limit).
    private static List<String> classpathArgs() {
        String classpath = System.getProperty("java.class.path", "");
        if (classpath.length() < MAX_ARG_LENGTH) {
            return List.of("-cp", classpath);
        }
        try {
            Path argFile = Files.createTempFile("relock-child-jvm-", ".args");
            argFile.toFile().deleteOnExit();
            String quoted = classpath.replace("\\", "\\\\").replace("\"", "\\\"");
            Files.writeString(argFile, "-cp \"" + quoted + "\"\n");
            return List.of("@" + argFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the classpath argument file", e);
        }
    }
}
