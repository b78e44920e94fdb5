package io.github.relock.sample.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

import io.github.relock.test.RedisServer;

/**
 * The Redis this application talks to, when it had to start one itself: at startup it asks whether a
 * Redis answers at {@code spring.data.redis.host:port}; if none does and that address is this machine,
 * it starts a {@code redis-server} there with lock-redis-process's {@link RedisServer}, and stops that
 * process (and only that one) when the application context closes.
 *
 * <p>The binary is {@code -Dredis.server.binary} if set, else {@code redis-server} on the PATH, else the one
 * shipped in the embedded-redis jar. If the JVM exits without the context closing, the server is stopped
 * then; if the JVM is killed, it goes with it.
 */
public final class EmbeddedRedisServer implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisServer.class);

    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

    // JVM shutdown hooks run concurrently with Spring's: give the context this long to stop the server itself
    private static final Duration EXIT_GRACE = Duration.ofSeconds(15);

    private final String host;
    private final int port;
    private final @Nullable RedisServer server;

    private EmbeddedRedisServer(String host, int port, @Nullable RedisServer server) {
        this.host = host;
        this.port = port;
        this.server = server;
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
        if (answers(host, port)) {
            log.info("Using the Redis that answers at {}:{} (not started by this application)", host, port);
            return new EmbeddedRedisServer(host, port, null);
        }
        InetAddress address = localAddress(host);
        if (address == null) {
            throw new IllegalStateException("No Redis answers at " + host + ":" + port + ", and an embedded redis-server can "
                    + "only be started on this machine (a loopback or local address). Start a Redis there, or set "
                    + "spring.data.redis.host to 127.0.0.1.");
        }
        RedisServer.Builder builder = RedisServer.builder().bind(address.getHostAddress()).port(port)
                .startTimeout(startTimeout).exitGrace(EXIT_GRACE);
        if (password != null && !password.isEmpty()) {
            builder.password(password);
        }
        RedisServer server;
        try {
            server = builder.start();
        }
        catch (RuntimeException ex) {
            if (answers(host, port)) {
                // another instance started one on the same port a moment before us: share it, as intended
                log.info("Using the Redis that answers at {}:{} (started by another process just now)", host, port);
                return new EmbeddedRedisServer(host, port, null);
            }
            throw new IllegalStateException("No Redis answers at " + host + ":" + port + ", and an embedded redis-server "
                    + "could not be started there (start a Redis there yourself): " + ex.getMessage(), ex);
        }
        log.info("No Redis answered at {}:{}, so started an embedded redis-server {} there (pid {}, binary {}); it stops "
                + "with this application", host, port, server.version(), server.pid(), server.binary());
        return new EmbeddedRedisServer(host, port, server);
    }

    /** For a Redis set-up this class does not handle (Sentinel, Cluster, TLS): nothing is started. */
    static EmbeddedRedisServer notUsed() {
        return new EmbeddedRedisServer("", -1, null);
    }

    /** Whether a Redis answers PING there; something else that answers there fails startup. */
    private static boolean answers(String host, int port) {
        try {
            return RedisProbe.ping(host, port, PROBE_TIMEOUT) != null;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot use spring.data.redis.host/port " + host + ":" + port + ": " + ex.getMessage()
                    + ". Point spring.data.redis.* at a Redis, or at a free local port for an embedded one.", ex);
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
        return server != null;
    }

    /** The pid of the server this application started, or -1 if it uses one that was already running. */
    public long pid() {
        return server != null ? server.pid() : -1;
    }

    /** {@code spring.data.redis.host}: where the server this application uses answers. */
    public String getHost() {
        return host;
    }

    /** {@code spring.data.redis.port}: the fixed port of a server started here too. */
    public int getPort() {
        return port;
    }

    /** Stops the process this application started, if it did; a Redis it found running is left alone. */
    @Override
    public void destroy() {
        if (server != null) {
            server.close();
            log.info("Stopped the embedded redis-server {} at {}:{} (pid {})", server.version(), host, port, server.pid());
        }
    }

    @Override
    public String toString() {
        return server != null ? "embedded redis-server " + server.version() + " at " + host + ":" + port + " (pid " + pid() + ")"
                : "Redis at " + host + ":" + port + " (not started by this application)";
    }

}
