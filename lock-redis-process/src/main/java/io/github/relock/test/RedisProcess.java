package io.github.relock.test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One run of {@code redis-server}, from start until it exits: started, awaited until it answers as itself,
 * then stopped, killed, paused or resumed. A {@link RedisServer} makes a new one on every (re)start.
 */
final class RedisProcess {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private final Process process;
    private final long pid;
    private final String version;
    private volatile boolean paused;

    private RedisProcess(Process process, long pid, String version) {
        this.process = process;
        this.pid = pid;
        this.version = version;
    }

    /**
     * Starts the process and waits until {@code host:port} answers PING from it (not from another server that
     * holds the port).
     *
     * @throws IllegalStateException if it exits first or does not answer within {@code startTimeout}; the
     *     process is gone then
     */
    static RedisProcess start(ProcessBuilder builder, String host, int port, @Nullable String password,
            Duration startTimeout, Duration exitGrace) throws IOException {
        Process started = ProcessRegistry.start(builder, exitGrace);
        try {
            started.getOutputStream().close(); // redis never reads stdin
            return awaitReady(started, host, port, password, startTimeout);
        } catch (IOException | RuntimeException e) {
            started.destroyForcibly();
            awaitExit(started);
            throw e;
        }
    }

    private static RedisProcess awaitReady(Process started, String host, int port, @Nullable String password,
            Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!started.isAlive()) {
                throw new IllegalStateException("exited with code " + started.exitValue() + " before answering PING");
            }
            try {
                if ("PONG".equals(Resp.call(host, port, password, Duration.ofSeconds(1), "PING"))) {
                    String info = String.valueOf(Resp.call(host, port, password, PROBE_TIMEOUT, "INFO", "server"));
                    long answeringPid = Long.parseLong(Resp.infoField(info, "process_id"));
                    // another server may own the port; then ours dies of "address in use" on the next round
                    if (answeringPid == started.pid()
                            || started.descendants().anyMatch(child -> child.pid() == answeringPid)) {
                        return new RedisProcess(started, answeringPid, Resp.infoField(info, "redis_version"));
                    }
                }
            } catch (IOException | Resp.ErrorReply | NumberFormatException e) {
                // not listening yet, or still loading
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("did not answer PING within " + timeout.toMillis() + " ms");
            }
            sleep(5);
        }
    }

    /** The pid of the server that answers, a child of {@link Process#pid()} if the binary is a wrapper script. */
    long pid() {
        return pid;
    }

    String version() {
        return version;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    boolean isPaused() {
        return paused && isAlive();
    }

    /** SIGTERM, then SIGKILL if it lingers; waits for the exit. */
    void stop() {
        if (!isAlive()) {
            return;
        }
        if (paused) {
            resume(); // a stopped process would keep SIGTERM pending forever
        }
        process.destroy();
        if (!awaitExit(process)) {
            process.destroyForcibly();
            awaitExit(process);
        }
    }

    /** SIGKILL, as in a crash; waits for the exit. */
    void kill() {
        if (!isAlive()) {
            return;
        }
        if (pid != process.pid()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // the binary is a wrapper script
        }
        process.destroyForcibly();
        awaitExit(process);
        paused = false;
    }

    /** SIGSTOP: frozen with its sockets open. */
    void pause() {
        Signals.stop(pid);
        paused = true;
    }

    /** SIGCONT. */
    void resume() {
        Signals.cont(pid);
        paused = false;
    }

    private static boolean awaitExit(Process process) {
        try {
            return process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
