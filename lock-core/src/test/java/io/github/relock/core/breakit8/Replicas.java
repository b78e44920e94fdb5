package io.github.relock.core.breakit8;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;

import io.github.relock.test.RedisServer;

/** Fixtures of this break-it pass: replication state, blocked clients, a wrapping factory. */
final class Replicas {

    private Replicas() {
    }

    static void awaitOnline(RedisServer primary, int replicas) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            String info = String.valueOf(primary.command("INFO", "replication"));
            int online = 0;
            for (int i = 0; info.contains("slave" + i + ":"); i++) {
                online += info.split("slave" + i + ":")[1].split("\r?\n")[0].contains("state=online") ? 1 : 0;
            }
            if (online >= replicas) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("replicas never came online");
    }

    /** The id of the client whose current command is {@code command}, as CLIENT LIST shows it. */
    static String awaitClientBlockedIn(RedisServer server, String command) throws InterruptedException {
        Pattern line = Pattern.compile("^id=(\\d+) .* cmd=" + command + "( |$)", Pattern.MULTILINE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Matcher matcher = line.matcher(String.valueOf(server.command("CLIENT", "LIST")));
            if (matcher.find()) {
                return matcher.group(1);
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no client blocked in " + command);
    }

    static int connectedClients(RedisServer server) {
        String info = String.valueOf(server.command("INFO", "clients"));
        Matcher matcher = Pattern.compile("connected_clients:(\\d+)").matcher(info);
        if (!matcher.find()) {
            throw new AssertionError(info);
        }
        return Integer.parseInt(matcher.group(1));
    }

    /**
     * A factory that hands out its delegate's connections behind a JDK proxy, as tracing and metrics wrappers
     * do: the connection is Lettuce's underneath, but not a LettuceConnection by its class.
     */
    static RedisConnectionFactory wrapped(RedisConnectionFactory delegate) {
        return new RedisConnectionFactory() {

            @Override
            public RedisConnection getConnection() {
                RedisConnection real = delegate.getConnection();
                return (RedisConnection) Proxy.newProxyInstance(Replicas.class.getClassLoader(),
                        new Class<?>[] {RedisConnection.class}, (proxy, method, args) -> {
                            try {
                                return method.invoke(real, args);
                            }
                            catch (InvocationTargetException ex) {
                                throw ex.getCause();
                            }
                        });
            }

            @Override
            public RedisClusterConnection getClusterConnection() {
                return delegate.getClusterConnection();
            }

            @Override
            public boolean getConvertPipelineAndTxResults() {
                return delegate.getConvertPipelineAndTxResults();
            }

            @Override
            public RedisSentinelConnection getSentinelConnection() {
                return delegate.getSentinelConnection();
            }

            @Override
            public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
                return delegate.translateExceptionIfPossible(ex);
            }
        };
    }
}
