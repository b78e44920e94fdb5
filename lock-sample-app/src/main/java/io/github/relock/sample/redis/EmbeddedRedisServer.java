package io.github.relock.sample.redis;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

import redis.embedded.core.ExecutableProvider;

/**
 * The Redis this application talks to, when it had to start one itself: at startup it asks whether a
 * Redis answers at {@code spring.data.redis.host:port}; if none does and that address is this machine,
 * it starts the {@code redis-server} binary shipped in the {@code embedded-redis} jar there, and stops
 * that process (and only that one) when the application context closes.
 *
 * <p>The process is started and stopped here rather than through embedded-redis's {@code RedisServer}
 * class so that its pid can be logged and it can be stopped by its own {@link Process} handle.
 */
public final class EmbeddedRedisServer implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisServer.class);

    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

    private static final Pattern VERSION = Pattern.compile("Redis version=([0-9.]+)");

    private final String host;
    private final int port;
    private final @Nullable Process process;
    private final String version;

    /** Counted down once {@link #destroy()} stopped the process. */
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Stops the process if the JVM exits without the context closing (a failed shutdown, System.exit elsewhere). */
    private final @Nullable Thread shutdownHook;

    private EmbeddedRedisServer(String host, int port, @Nullable Process process, String version) {
        this.host = host;
        this.port = port;
        this.process = process;
        this.version = version;
        if (process != null) {
            // JVM shutdown hooks run concurrently with Spring's: give the context time to close cleanly first
            this.shutdownHook = new Thread(() -> {
                try {
                    if (!stopped.await(15, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                    }
                }
                catch (InterruptedException ex) {
                    process.destroyForcibly();
                }
            }, "embedded-redis-" + port + "-shutdown");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        else {
            this.shutdownHook = null;
        }
    }

    /**
     * Uses the Redis that answers at host:port, or starts an embedded one there.
     *
     * @param password     {@code requirepass} for a server started here, so that the configured
     *                     credentials work against it; {@code null} for none
     * @param startTimeout how long a started server may take to accept connections
     */
    public static EmbeddedRedisServer startIfNoneAnswers(String host, int port, @Nullable String password,
            Duration startTimeout) {
        try {
            String reply = RedisProbe.ping(host, port, PROBE_TIMEOUT);
            if (reply != null) {
                log.info("Using the Redis that answers at {}:{} (not started by this application)", host, port);
                return new EmbeddedRedisServer(host, port, null, "");
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot use spring.data.redis.host/port " + host + ":" + port + ": " + ex.getMessage()
                    + ". Point spring.data.redis.* at a Redis, or at a free local port for an embedded one.", ex);
        }
        InetAddress address = localAddress(host);
        if (address == null) {
            throw new IllegalStateException("No Redis answers at " + host + ":" + port + ", and an embedded redis-server can "
                    + "only be started on this machine (a loopback or local address). Start a Redis there, or set "
                    + "spring.data.redis.host to 127.0.0.1.");
        }
        return start(host, address, port, password, startTimeout);
    }

    /** For a Redis set-up this class does not handle (Sentinel, Cluster, TLS): nothing is started. */
    static EmbeddedRedisServer notUsed() {
        return new EmbeddedRedisServer("", -1, null, "");
    }

    private static EmbeddedRedisServer start(String host, InetAddress address, int port, @Nullable String password,
            Duration startTimeout) {
        File binary;
        try {
            binary = ExecutableProvider.newJarResourceProvider().get();
        }
        catch (IOException | RuntimeException ex) {
            throw new IllegalStateException("No Redis answers at " + host + ":" + port + ", and the redis-server binary of the "
                    + "embedded-redis jar cannot be used on " + System.getProperty("os.name") + "/"
                    + System.getProperty("os.arch") + " (" + ex.getMessage() + "). Install and start a Redis there.", ex);
        }
        List<String> command = new ArrayList<>(List.of(binary.getAbsolutePath(),
                "--bind", address.getHostAddress(), "--port", Integer.toString(port),
                "--save", "", "--appendonly", "no", // a lock store for a demo: nothing to keep on disk
                "--dir", binary.getParentFile().getAbsolutePath()));
        if (password != null && !password.isEmpty()) {
            command.addAll(List.of("--requirepass", password));
        }
        Process process;
        try {
            process = new ProcessBuilder(command).directory(binary.getParentFile()).redirectErrorStream(true).start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + binary, ex);
        }
        List<String> output = new CopyOnWriteArrayList<>();
        Thread pump = new Thread(() -> pump(process, output), "embedded-redis-" + port + "-output");
        pump.setDaemon(true);
        pump.start();
        String version = awaitReady(host, port, process, output, startTimeout);
        if (version == null) {
            // another instance started one on the same port a moment before us: share it, as intended
            log.info("Using the Redis that answers at {}:{} (started by another process just now)", host, port);
            return new EmbeddedRedisServer(host, port, null, "");
        }
        EmbeddedRedisServer server = new EmbeddedRedisServer(host, port, process, version);
        log.info("No Redis answered at {}:{}, so started an embedded redis-server {} there (pid {}, from the "
                + "embedded-redis jar); it stops with this application", host, port, version, process.pid());
        return server;
    }

    /** Reads the server's output so that its pipe never fills; kept for error messages, logged at debug. */
    private static void pump(Process process, List<String> output) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (output.size() < 200) {
                    output.add(line);
                }
                log.debug("redis-server: {}", line);
            }
        }
        catch (IOException ex) {
            // the process ended
        }
    }

    /** The server's version once it answers; {@code null} if it exited because another Redis took the port. */
    private static @Nullable String awaitReady(String host, int port, Process process, List<String> output, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                if (probeQuietly(host, port) != null) {
                    return null;
                }
                throw new IllegalStateException("The embedded redis-server at " + host + ":" + port + " exited with code "
                        + process.exitValue() + " before accepting connections. Its output:\n  "
                        + String.join("\n  ", output));
            }
            // its own "ready" line, so that a Redis another process started there meanwhile is not taken for it
            boolean ready = output.stream().anyMatch(line -> line.contains("Ready to accept connections"));
            if (ready && probeQuietly(host, port) != null) {
                return output.stream().map(VERSION::matcher).filter(Matcher::find).map(m -> m.group(1)).findFirst()
                        .orElse("(version unknown)");
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("The embedded redis-server at " + host + ":" + port + " did not accept connections "
                + "within " + timeout + ". Its output:\n  " + String.join("\n  ", output));
    }

    private static @Nullable String probeQuietly(String host, int port) {
        try {
            return RedisProbe.ping(host, port, PROBE_TIMEOUT);
        }
        catch (IOException ex) {
            return null;
        }
    }

    /** The address to bind to if {@code host} is this machine, else {@code null}. */
    private static @Nullable InetAddress localAddress(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
                return address.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : address;
            }
            return NetworkInterface.getByInetAddress(address) != null ? address : null;
        }
        catch (IOException ex) {
            return null;
        }
    }

    /** Whether this application started the server (and will stop it). */
    public boolean isEmbedded() {
        return process != null;
    }

    /** The pid of the server this application started, or -1 if it uses one that was already running. */
    public long pid() {
        return process != null ? process.pid() : -1;
    }

    public String getHost() {
        return host;
    }

    public int getPort() {
        return port;
    }

    /** Stops the process this application started, if it did; a Redis it found running is left alone. */
    @Override
    public void destroy() {
        Process started = process;
        if (started == null) {
            return;
        }
        try {
            stopProcess(started);
        }
        finally {
            stopped.countDown();
            removeShutdownHook();
        }
    }

    private void removeShutdownHook() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            }
            catch (IllegalStateException ex) {
                // the JVM is shutting down already; the hook sees the latch and returns
            }
        }
    }

    private void stopProcess(Process started) {
        if (!started.isAlive()) {
            return;
        }
        started.destroy(); // SIGTERM: redis-server shuts down cleanly, and with --save "" writes nothing
        try {
            if (!started.waitFor(5, TimeUnit.SECONDS)) {
                started.destroyForcibly();
                started.waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            started.destroyForcibly();
        }
        log.info("Stopped the embedded redis-server {} at {}:{} (pid {})", version, host, port, started.pid());
    }

    @Override
    public String toString() {
        return isEmbedded() ? "embedded redis-server " + version + " at " + host + ":" + port + " (pid " + pid() + ")"
                : "Redis at " + host + ":" + port + " (not started by this application)";
    }

}
