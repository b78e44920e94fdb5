package io.github.relock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * A real {@code redis-server} process on a free {@code 127.0.0.1} port, with no persistence, started in
 * milliseconds and fully under the test's control: {@link #kill()}, {@link #pause()}, {@link #restart()}.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     LettuceConnectionFactory factory = redis.connectionFactory();
 *     redis.pause();   // every command now times out
 *     redis.resume();
 * }
 * }</pre>
 *
 * <p>The binary is {@code -Dredis.server.binary=/path/to/redis-server}, else {@code redis-server} on the
 * PATH, else the Redis 6.2 binary inside the embedded-redis jar ({@code -Dredis.server.binary=embedded}
 * forces that one). The process is killed at JVM exit even if {@link #close()} never
 * runs. In JUnit, prefer {@link RedisServerExtension}. Thread-safe.
 */
public final class RedisServer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);
    private static final int START_ATTEMPTS = 5;

    private final Path binary;
    private final List<String> userArgs;
    // mutable: a restart as a replica changes whom the node follows from then on
    private volatile @Nullable String replicaOfHost;
    private volatile int replicaOfPort;
    private final @Nullable List<String> sentinelConfig;
    private final boolean clusterBus;
    private final boolean fixedPort;
    private final Path dir;
    private final Path log;

    private volatile int port;
    private volatile long pid = -1;
    private volatile boolean paused;
    private volatile String version = "";
    private @Nullable Process process;
    private @Nullable LettuceConnectionFactory sharedFactory;
    private LettuceSupport.@Nullable Commands sharedCommands;
    private final List<LettuceConnectionFactory> createdFactories = new ArrayList<>();
    private boolean closed;

    private RedisServer(Builder builder) {
        this.binary = RedisBinary.path();
        this.userArgs = List.copyOf(builder.args);
        this.replicaOfHost = builder.replicaOfHost;
        this.replicaOfPort = builder.replicaOfPort;
        this.sentinelConfig = builder.sentinelConfig;
        this.clusterBus = isClusterEnabled(userArgs);
        this.fixedPort = builder.port != 0;
        this.dir = ProcessRegistry.createTempDir(sentinelConfig != null ? "relock-sentinel-" : "relock-redis-");
        this.log = dir.resolve("redis.log");
        this.port = fixedPort ? builder.port : Ports.freePort(clusterBus);
    }

    /** Starts a standalone server on a free port with no persistence and waits until it answers PING. */
    public static RedisServer start() {
        return builder().start();
    }

    /** A builder for a server with a fixed port, extra arguments or a primary to replicate. */
    public static Builder builder() {
        return new Builder();
    }

    /** Always {@code "127.0.0.1"}: servers bind loopback only. */
    public String host() {
        return HOST;
    }

    /** The port; stays the same across {@link #restart()}. */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /** The pid of the current process; a {@link #restart()} gives a new one. */
    public long pid() {
        return pid;
    }

    /** The server's {@code redis_version} from {@code INFO server}, e.g. {@code "6.2.6"}. */
    public String version() {
        return version;
    }

    /** The server's working directory (a temp dir, deleted by {@link #close()}). */
    public Path dir() {
        return dir;
    }

    /** True while the process exists, also while it is {@linkplain #pause() paused}. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** True between {@link #pause()} and {@link #resume()}. */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /** Stops the server gracefully (SIGTERM, no save) and waits for the process to exit; no-op if not running. */
    public synchronized void stop() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        if (paused) {
            resume(); // a stopped process would keep SIGTERM pending forever
        }
        current.destroy();
        if (!awaitExit(current, STOP_TIMEOUT)) {
            current.destroyForcibly();
            awaitExit(current, STOP_TIMEOUT);
        }
    }

    /** SIGKILL: the server dies at once, as in a crash; waits for the process to exit. No-op if not running. */
    public synchronized void kill() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        if (pid != current.pid()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // the binary is a wrapper script
        }
        current.destroyForcibly();
        awaitExit(current, STOP_TIMEOUT);
        paused = false;
    }

    /**
     * SIGSTOP: the process freezes with its sockets open, so clients see timeouts rather than connection
     * errors (a GC pause, a hung host). Undo with {@link #resume()}.
     */
    public synchronized void pause() {
        requireRunning("pause");
        Signals.stop(pid);
        paused = true;
    }

    /** SIGCONT: a {@linkplain #pause() paused} server answers again, including commands that were waiting. */
    public synchronized void resume() {
        requireRunning("resume");
        Signals.cont(pid);
        paused = false;
    }

    /**
     * Starts the server again on the same port with the same arguments, stopping it first if it runs, and
     * waits until it answers. Data is empty (no persistence), unless persistence was switched on with
     * {@link Builder#arg(String...)}: then the files in {@link #dir()} are reloaded. A replica resyncs.
     */
    public synchronized void restart() {
        requireOpen("restart");
        stop();
        launch(false);
    }

    /**
     * {@link #restart()}, but the server comes back with {@code --replicaof primary}, so it never answers as an
     * empty primary; later restarts keep following {@code primary}. A failed-over old primary rejoins this way.
     */
    public synchronized void restartAsReplicaOf(RedisServer primary) {
        if (primary == this) {
            throw new IllegalArgumentException(this + " cannot replicate itself");
        }
        replicaOfHost = primary.host();
        replicaOfPort = primary.port();
        restart();
    }

    /** {@code FLUSHALL} (fails with READONLY on a replica). */
    public void flushAll() {
        call("FLUSHALL");
    }

    /**
     * Runs one command on a fresh connection and renders the reply for assertions: simple and bulk strings
     * as is, integers in decimal, nil as {@code null}, arrays as their elements joined by {@code "\n"}.
     *
     * @throws IllegalStateException with the server's message (e.g. {@code "ERR unknown command ..."}) on an
     *     error reply
     * @throws UncheckedIOException if the server does not answer within 5 s or is not running
     */
    public @Nullable String command(String... args) {
        return Resp.format(call(args));
    }

    /** The raw reply: String, Long, List or null. */
    @Nullable Object call(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no command given");
        }
        try {
            return Resp.call(HOST, port, PROBE_TIMEOUT, args);
        } catch (IOException e) {
            throw new UncheckedIOException(args[0] + " on " + HOST + ":" + port + " failed: " + e.getMessage(), e);
        }
    }

    /** A new, started factory with a 5 s command timeout. The caller destroys it; {@link #close()} does too. */
    public LettuceConnectionFactory newConnectionFactory() {
        return newConnectionFactory(LettuceSupport.DEFAULT_TIMEOUT);
    }

    /**
     * A new, started factory with the given command timeout (e.g. 300 ms for a test that pauses the server).
     * The caller destroys it; {@link #close()} does too.
     */
    public synchronized LettuceConnectionFactory newConnectionFactory(Duration commandTimeout) {
        requireOpen("newConnectionFactory");
        LettuceConnectionFactory factory = LettuceSupport.startedFactory(
                new RedisStandaloneConfiguration(HOST, port),
                LettuceSupport.clientConfiguration(commandTimeout).build());
        createdFactories.add(factory);
        return factory;
    }

    /** One shared factory (5 s command timeout), created on first use and destroyed by {@link #close()}. */
    public synchronized LettuceConnectionFactory connectionFactory() {
        requireOpen("connectionFactory");
        if (sharedFactory == null) {
            sharedFactory = newConnectionFactory();
        }
        return sharedFactory;
    }

    /** Shared Lettuce sync commands (5 s timeout) for assertions; they reconnect after a restart. */
    public synchronized RedisCommands<String, String> commands() {
        requireOpen("commands");
        if (sharedCommands == null) {
            sharedCommands = new LettuceSupport.Commands(LettuceSupport.uri(HOST, port, LettuceSupport.DEFAULT_TIMEOUT));
        }
        return sharedCommands.sync();
    }

    /** Closes the factories and clients made here, stops the server and deletes its directory. Idempotent. */
    @Override
    public void close() {
        List<LettuceConnectionFactory> factories;
        LettuceSupport.Commands commands;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            factories = new ArrayList<>(createdFactories);
            createdFactories.clear();
            commands = sharedCommands;
            sharedCommands = null;
            sharedFactory = null;
        }
        try {
            factories.forEach(LettuceSupport::destroyQuietly);
            if (commands != null) {
                commands.close();
            }
        } finally {
            stop();
            ProcessRegistry.delete(dir);
        }
    }

    @Override
    public String toString() {
        return "RedisServer[" + HOST + ":" + port + ", pid " + pid + ", " + (version.isEmpty() ? "?" : version) + "]";
    }

    /** The last lines of this server's log (stdout and stderr), for failure messages. */
    String logTail(int lines) {
        return tail(0, lines);
    }

    // ---------------------------------------------------------------------------------------------

    private void launch(boolean mayChangePort) {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            long logOffset = logSize();
            List<String> commandLine = commandLine();
            Process started;
            try {
                started = ProcessRegistry.start(new ProcessBuilder(commandLine)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(Redirect.appendTo(log.toFile())));
                started.getOutputStream().close(); // redis never reads stdin
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run " + RedisBinary.describe(), e);
            }
            try {
                awaitReady(started, logOffset, commandLine);
                process = started;
                paused = false;
                return;
            } catch (IllegalStateException e) {
                started.destroyForcibly();
                awaitExit(started, STOP_TIMEOUT);
                if (!tail(logOffset, 50).contains("already in use")) {
                    throw e;
                }
                failure = e; // port collision: someone bound our port between pick and start
                if (mayChangePort) {
                    port = Ports.freePort(clusterBus);
                } else {
                    sleep(200);
                }
            }
        }
        throw Objects.requireNonNull(failure);
    }

    private List<String> commandLine() {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        if (sentinelConfig != null) {
            command.add(writeSentinelConfig().toString());
            command.add("--sentinel");
        }
        command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--daemonize", "no",
                "--dir", dir.toString()));
        if (sentinelConfig == null) {
            // no persistence; replicas sync at once (Redis 7 waits 5 s for more replicas by default)
            command.addAll(List.of("--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"));
        }
        if (replicaOfHost != null) {
            command.addAll(List.of("--replicaof", replicaOfHost, Integer.toString(replicaOfPort)));
        }
        command.addAll(userArgs); // last, so they override the defaults above
        return command;
    }

    // Sentinel rewrites its config file with what it learns; keep that file across restarts.
    private Path writeSentinelConfig() {
        Path file = dir.resolve("sentinel.conf");
        if (!Files.exists(file)) {
            try {
                Files.write(file, Objects.requireNonNull(sentinelConfig), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
        }
        return file;
    }

    private void awaitReady(Process started, long logOffset, List<String> commandLine) {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (true) {
            if (!started.isAlive()) {
                throw startFailure("exited with code " + started.exitValue() + " before answering PING",
                        logOffset, commandLine);
            }
            try {
                if ("PONG".equals(Resp.call(HOST, port, Duration.ofSeconds(1), "PING"))) {
                    String info = String.valueOf(Resp.call(HOST, port, PROBE_TIMEOUT, "INFO", "server"));
                    long answeringPid = Long.parseLong(infoField(info, "process_id"));
                    // another server may own the port; then ours dies of "address in use" on the next round
                    if (answeringPid == started.pid()
                            || started.descendants().anyMatch(child -> child.pid() == answeringPid)) {
                        pid = answeringPid;
                        version = infoField(info, "redis_version");
                        return;
                    }
                }
            } catch (IOException | Resp.ErrorReply | NumberFormatException e) {
                // not listening yet, or still loading
            }
            if (System.nanoTime() > deadline) {
                throw startFailure("did not answer PING within " + STARTUP_TIMEOUT.toSeconds() + " s",
                        logOffset, commandLine);
            }
            sleep(5);
        }
    }

    private IllegalStateException startFailure(String what, long logOffset, List<String> commandLine) {
        return new IllegalStateException("redis-server on port " + port + " " + what
                + "\n  binary: " + RedisBinary.describe()
                + "\n  command: " + commandLine
                + "\n  output (tail):\n" + tail(logOffset, 30));
    }

    static String infoField(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "";
    }

    private long logSize() {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private String tail(long fromOffset, int maxLines) {
        try {
            if (!Files.exists(log)) {
                return "    (no output)";
            }
            byte[] bytes = Files.readAllBytes(log);
            int from = (int) Math.min(fromOffset, bytes.length);
            List<String> lines = Arrays.asList(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8)
                    .split("\n"));
            List<String> last = lines.subList(Math.max(0, lines.size() - maxLines), lines.size());
            return "    " + String.join("\n    ", last);
        } catch (IOException e) {
            return "    (cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    private void requireRunning(String action) {
        if (!isRunning()) {
            throw new IllegalStateException("cannot " + action + " " + this + ": not running");
        }
    }

    private synchronized void requireOpen(String action) {
        if (closed) {
            throw new IllegalStateException("cannot " + action + " " + this + ": closed");
        }
    }

    private static boolean awaitExit(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static boolean isClusterEnabled(List<String> args) {
        int index = args.indexOf("--cluster-enabled");
        return index >= 0 && index + 1 < args.size() && args.get(index + 1).equalsIgnoreCase("yes");
    }

    /** Configures a {@link RedisServer} before {@link #start()}. */
    public static final class Builder {
        private int port;
        private final List<String> args = new ArrayList<>();
        private @Nullable String replicaOfHost;
        private int replicaOfPort;
        private @Nullable List<String> sentinelConfig;

        private Builder() {
        }

        /** A fixed port instead of a free one (no retry on another port if it is taken). */
        public Builder port(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Extra command-line arguments, appended after the defaults so they win, e.g.
         * {@code arg("--maxmemory", "10mb")} or {@code arg("--appendonly", "yes")}.
         */
        public Builder arg(String... args) {
            this.args.addAll(Arrays.asList(args));
            return this;
        }

        /** Starts the server as a replica of the given primary ({@code --replicaof host port}). */
        public Builder replicaOf(String host, int port) {
            this.replicaOfHost = Objects.requireNonNull(host, "host");
            this.replicaOfPort = port;
            return this;
        }

        /** Starts the server as a replica of {@code primary}. */
        public Builder replicaOf(RedisServer primary) {
            return replicaOf(primary.host(), primary.port());
        }

        /** Runs in Sentinel mode with these lines as the initial {@code sentinel.conf}. */
        Builder sentinel(List<String> configLines) {
            this.sentinelConfig = Collections.unmodifiableList(new ArrayList<>(configLines));
            return this;
        }

        /** Starts the process and waits until it answers PING (up to 15 s, else an exception with its output). */
        public RedisServer start() {
            RedisServer server = new RedisServer(this);
            try {
                server.launch(!server.fixedPort);
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
            return server;
        }
    }
}
