package io.github.relock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * A real {@code redis-server} process on a free {@code 127.0.0.1} port, with no persistence, started in
 * milliseconds and fully under the caller's control: {@link #kill()}, {@link #pause()}, {@link #restart()}.
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
 * forces that one). The process is killed at JVM exit even if {@link #close()} never runs, and with the JVM
 * if it is killed. In JUnit, prefer {@code RedisServerExtension} (lock-test-support). Thread-safe.
 */
public final class RedisServer implements AutoCloseable {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final ServerLauncher launcher;
    private final ServerConnections connections;
    // the latest run, kept after it exits so that pid() and version() still name it
    private volatile @Nullable RedisProcess process;
    private boolean closed;

    private RedisServer(Builder builder) {
        this.launcher = new ServerLauncher(builder.settings());
        this.connections = new ServerConnections(launcher);
    }

    /** Starts a standalone server on a free port with no persistence and waits until it answers PING. */
    public static RedisServer start() {
        return builder().start();
    }

    /** A builder for a server with a fixed port, extra arguments or a primary to replicate. */
    public static Builder builder() {
        return new Builder();
    }

    /** The address it listens on: {@code "127.0.0.1"} unless {@link Builder#bind(String)} chose another. */
    public String host() {
        return launcher.host();
    }

    /** The port; stays the same across {@link #restart()}. */
    public int port() {
        return launcher.port();
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + (host().contains(":") ? "[" + host() + "]" : host()) + ":" + port();
    }

    /** The pid of the current process; a {@link #restart()} gives a new one. */
    public long pid() {
        RedisProcess current = process;
        return current != null ? current.pid() : -1;
    }

    /** The server's {@code redis_version} from {@code INFO server}, e.g. {@code "6.2.6"}. */
    public String version() {
        RedisProcess current = process;
        return current != null ? current.version() : "";
    }

    /** The executable and where it was found, e.g. {@code "/usr/bin/redis-server (PATH)"}. */
    public String binary() {
        return RedisBinary.describe();
    }

    /** The server's working directory (a temp dir, deleted by {@link #close()}). */
    public Path dir() {
        return launcher.dir();
    }

    /** True while the process exists, also while it is {@linkplain #pause() paused}. */
    public boolean isRunning() {
        RedisProcess current = process;
        return current != null && current.isAlive();
    }

    /** True between {@link #pause()} and {@link #resume()}. */
    public boolean isPaused() {
        RedisProcess current = process;
        return current != null && current.isPaused();
    }

    /** Stops the server gracefully (SIGTERM, no save) and waits for the process to exit; no-op if not running. */
    public synchronized void stop() {
        RedisProcess current = process;
        if (current != null) {
            current.stop();
        }
    }

    /** SIGKILL: the server dies at once, as in a crash; waits for the process to exit. No-op if not running. */
    public synchronized void kill() {
        RedisProcess current = process;
        if (current != null) {
            current.kill();
        }
    }

    /**
     * SIGSTOP: the process freezes with its sockets open, so clients see timeouts rather than connection
     * errors (a GC pause, a hung host). Undo with {@link #resume()}.
     */
    public synchronized void pause() {
        running("pause").pause();
    }

    /** SIGCONT: a {@linkplain #pause() paused} server answers again, including commands that were waiting. */
    public synchronized void resume() {
        running("resume").resume();
    }

    /**
     * Starts the server again on the same port with the same arguments, stopping it first if it runs, and
     * waits until it answers. Data is empty (no persistence), unless persistence was switched on with
     * {@link Builder#arg(String...)}: then the files in {@link #dir()} are reloaded. A replica resyncs.
     */
    public synchronized void restart() {
        requireOpen("restart");
        stop();
        process = launcher.launch(false);
    }

    /**
     * {@link #restart()}, but the server comes back with {@code --replicaof primary}, so it never answers as an
     * empty primary; later restarts keep following {@code primary}. A failed-over old primary rejoins this way.
     */
    public synchronized void restartAsReplicaOf(RedisServer primary) {
        if (primary == this) {
            throw new IllegalArgumentException(this + " cannot replicate itself");
        }
        launcher.replicaOf(primary.host(), primary.port());
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
            return Resp.call(host(), port(), launcher.password(), COMMAND_TIMEOUT, args);
        } catch (IOException e) {
            throw new UncheckedIOException(args[0] + " on " + host() + ":" + port() + " failed: " + e.getMessage(), e);
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
        return connections.newFactory(commandTimeout);
    }

    /** One shared factory (5 s command timeout), created on first use and destroyed by {@link #close()}. */
    public synchronized LettuceConnectionFactory connectionFactory() {
        requireOpen("connectionFactory");
        return connections.shared();
    }

    /** Shared Lettuce sync commands (5 s timeout) for assertions; they reconnect after a restart. */
    public synchronized RedisCommands<String, String> commands() {
        requireOpen("commands");
        return connections.commands();
    }

    /** Closes the factories and clients made here, stops the server and deletes its directory. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            connections.close();
        } finally {
            stop();
            ProcessRegistry.delete(dir());
        }
    }

    @Override
    public String toString() {
        String version = version().isEmpty() ? "?" : version();
        return "RedisServer[" + host() + ":" + port() + ", pid " + pid() + ", " + version + "]";
    }

    /** The last lines of this server's log (stdout and stderr), for failure messages. */
    String logTail(int lines) {
        return launcher.log().tail(0, lines);
    }

    private RedisProcess running(String action) {
        RedisProcess current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException("cannot " + action + " " + this + ": not running");
        }
        return current;
    }

    private synchronized void requireOpen(String action) {
        if (closed) {
            throw new IllegalStateException("cannot " + action + " " + this + ": closed");
        }
    }

    /** Configures a {@link RedisServer} before {@link #start()}. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private final List<String> args = new ArrayList<>();
        private @Nullable String replicaOfHost;
        private int replicaOfPort;
        private @Nullable List<String> sentinelConfig;
        private @Nullable String password;
        private Duration startTimeout = Duration.ofSeconds(15);
        private Duration exitGrace = Duration.ZERO;

        private Builder() {
        }

        ServerSettings settings() {
            return new ServerSettings(host, port, args, replicaOfHost, replicaOfPort, sentinelConfig, password,
                    startTimeout, exitGrace);
        }

        /** A fixed port instead of a free one (no retry on another port if it is taken). */
        public Builder port(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /** Another address of this machine to listen on instead of {@code 127.0.0.1}, e.g. {@code "::1"}. */
        public Builder bind(String address) {
            this.host = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * Extra command-line arguments, appended after the defaults so they win, e.g.
         * {@code arg("--maxmemory", "10mb")} or {@code arg("--appendonly", "yes")}.
         */
        public Builder arg(String... args) {
            this.args.addAll(List.of(args));
            return this;
        }

        /** {@code --requirepass}; this server's own commands, factories and clients then authenticate. */
        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password");
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

        /** How long a (re)start may take until the server answers PING; 15 s by default. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * At a normal JVM exit, how long the process may run on so that the application stops it in its own
         * shutdown (a Spring context closing) before it is killed; zero by default. A killed JVM takes it along
         * at once all the same.
         */
        public Builder exitGrace(Duration grace) {
            this.exitGrace = Objects.requireNonNull(grace, "grace");
            return this;
        }

        /** Runs in Sentinel mode with these lines as the initial {@code sentinel.conf}. */
        Builder sentinel(List<String> configLines) {
            this.sentinelConfig = List.copyOf(configLines);
            return this;
        }

        /** Starts the process and waits until it answers PING (else an exception with its output). */
        public RedisServer start() {
            RedisServer server = new RedisServer(this);
            try {
                server.process = server.launcher.launch(true);
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
            return server;
        }
    }
}
