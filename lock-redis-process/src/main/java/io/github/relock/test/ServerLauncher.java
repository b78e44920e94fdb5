package io.github.relock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Starts the processes of one {@link RedisServer}, first and on every restart: its command line, its directory
 * and log, and a retry when another process took its port between the pick and the bind.
 */
final class ServerLauncher {

    private static final int START_ATTEMPTS = 5;

    private final Path binary;
    private final String host;
    private final @Nullable String password;
    private final Duration startTimeout;
    private final Duration exitGrace;
    private final List<String> userArgs;
    // mutable: a restart as a replica changes whom the node follows from then on
    private volatile @Nullable String replicaOfHost;
    private volatile int replicaOfPort;
    private final @Nullable List<String> sentinelConfig;
    private final boolean clusterBus;
    private final boolean fixedPort;
    private final Path dir;
    private final ServerLog log;
    private volatile int port;

    ServerLauncher(ServerSettings settings) {
        this.binary = RedisBinary.path();
        this.host = settings.host();
        this.password = settings.password();
        this.startTimeout = settings.startTimeout();
        this.exitGrace = settings.exitGrace();
        this.userArgs = settings.args();
        this.replicaOfHost = settings.replicaOfHost();
        this.replicaOfPort = settings.replicaOfPort();
        this.sentinelConfig = settings.sentinelConfig();
        this.clusterBus = isClusterEnabled(userArgs);
        this.fixedPort = settings.port() != 0;
        this.dir = ProcessRegistry.createTempDir(sentinelConfig != null ? "relock-sentinel-" : "relock-redis-");
        this.log = new ServerLog(dir.resolve("redis.log"));
        this.port = fixedPort ? settings.port() : Ports.freePort(clusterBus);
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    @Nullable String password() {
        return password;
    }

    Path dir() {
        return dir;
    }

    ServerLog log() {
        return log;
    }

    /** From the next launch on, the server starts with {@code --replicaof host port}. */
    void replicaOf(String host, int port) {
        replicaOfHost = host;
        replicaOfPort = port;
    }

    /**
     * Starts a process and waits until it answers. On a port collision, the first launch of a server without a
     * fixed port moves to another free port; a restart waits and tries the same port again.
     *
     * @throws IllegalStateException naming the cause, the binary, the command line and the tail of the output
     */
    RedisProcess launch(boolean first) {
        boolean mayChangePort = first && !fixedPort;
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            long logOffset = log.size();
            List<String> commandLine = commandLine();
            ProcessBuilder builder = new ProcessBuilder(commandLine).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(log.redirect());
            try {
                return RedisProcess.start(builder, host, port, password, startTimeout, exitGrace);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run " + RedisBinary.describe(), e);
            } catch (IllegalStateException e) {
                failure = new IllegalStateException("redis-server on port " + port + " " + e.getMessage()
                        + "\n  binary: " + RedisBinary.describe()
                        + "\n  command: " + commandLine
                        + "\n  output (tail):\n" + log.tail(logOffset, 30), e);
                if (!log.tail(logOffset, 50).contains("already in use")) {
                    throw failure;
                }
                if (mayChangePort) {
                    port = Ports.freePort(clusterBus);
                } else {
                    RedisProcess.sleep(200);
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
        command.addAll(List.of("--port", Integer.toString(port), "--bind", host, "--daemonize", "no",
                "--dir", dir.toString()));
        if (password != null) {
            command.addAll(List.of("--requirepass", password));
        }
        if (sentinelConfig == null) {
            // no persistence; replicas sync at once (Redis 7 waits 5 s for more replicas by default)
            command.addAll(List.of("--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"));
        }
        String primaryHost = replicaOfHost;
        if (primaryHost != null) {
            command.addAll(List.of("--replicaof", primaryHost, Integer.toString(replicaOfPort)));
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

    private static boolean isClusterEnabled(List<String> args) {
        int index = args.indexOf("--cluster-enabled");
        return index >= 0 && index + 1 < args.size() && args.get(index + 1).equalsIgnoreCase("yes");
    }
}
