package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * close() while a waiter opens the client's pub/sub connection to a Redis that does not answer new connections
 * (a TCP proxy that accepts and then forwards nothing, as a half-dead node or a stalled load balancer would):
 * close() returns without waiting for the opening to time out (the factory's timeout; Lettuce's default is
 * 60 s).
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseWhileSubscribingTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Forwards each connection to Redis, or (frozen) accepts new ones and forwards nothing on them. */
    static final class Proxy implements AutoCloseable {
        final ServerSocket server;
        volatile boolean frozen;
        final List<Socket> sockets = new CopyOnWriteArrayList<>();

        Proxy(String host, int port) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket in = server.accept();
                        sockets.add(in);
                        if (frozen) {
                            continue; // accepted, never answered
                        }
                        Socket out = new Socket(host, port);
                        sockets.add(out);
                        pump(in.getInputStream(), out.getOutputStream());
                        pump(out.getInputStream(), in.getOutputStream());
                    }
                    catch (IOException ex) {
                        return;
                    }
                }
            });
            accept.setDaemon(true);
            accept.start();
        }

        private static void pump(InputStream from, OutputStream to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try {
                    int n;
                    while ((n = from.read(buffer)) >= 0) {
                        to.write(buffer, 0, n);
                        to.flush();
                    }
                }
                catch (IOException ignored) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void closeDoesNotWaitForAPubSubConnectionThatNeverOpens() throws Exception {
        try (Proxy proxy = new Proxy(redis.host(), redis.port())) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(redis.host(), proxy.port()),
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(8)).build());
            factory.afterPropertiesSet();
            factory.start();
            RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).build();
            RedisLockClient waiter = RedisLockClient.builder(factory).build();
            try {
                ReentrantDistributedLock held = holder.getLock("bk4:close-subscribing");
                held.lock();
                proxy.frozen = true; // the waiter's command connection is open already; its pub/sub one is not
                CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> {
                    try {
                        return waiter.getLock("bk4:close-subscribing").tryLock(40, TimeUnit.SECONDS);
                    }
                    catch (Throwable ex) {
                        return ex;
                    }
                });
                Thread.sleep(1_000); // its first attempt is done, it is opening the pub/sub connection
                assertThat(waiting).isNotDone();
                long start = System.nanoTime();
                CompletableFuture<Void> closing = CompletableFuture.runAsync(waiter::close);
                try {
                    closing.get(25, TimeUnit.SECONDS);
                }
                catch (java.util.concurrent.TimeoutException ignored) {
                    // reported below
                }
                long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                Object outcome = waiting.get(30, TimeUnit.SECONDS);
                long waiterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.println("close() took " + closeMillis + " ms; the waiter ended " + waiterMillis
                        + " ms after close began with " + outcome);
                assertThat(closeMillis).as("close() with a pub/sub connection opening").isLessThan(2_000);
                held.unlock();
            }
            finally {
                holder.close();
                waiter.close();
                factory.destroy();
            }
        }
    }
}
