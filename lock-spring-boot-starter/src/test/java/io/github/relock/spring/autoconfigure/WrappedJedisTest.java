package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.UnsupportedRedisDriverException;
import io.github.relock.test.RedisServerExtension;

/**
 * Jedis behind a wrapping factory: with proxied connections the first waiter hung in
 * Jedis's subscribe (and close() after it); now it fails at once with UnsupportedRedisDriverException, and an
 * application over such a factory does not start.
 */
@Timeout(60)
class WrappedJedisTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private JedisConnectionFactory jedis;

    @AfterEach
    void stop() {
        threads.shutdownNow();
        if (jedis != null) {
            jedis.destroy();
        }
    }

    private JedisConnectionFactory jedis() {
        jedis = new JedisConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        jedis.afterPropertiesSet();
        jedis.start();
        return jedis;
    }

    @Test
    void plainJedisIsRefusedAtBuild() {
        assertThatThrownBy(() -> RedisLockClient.builder(jedis()).build())
                .isInstanceOf(UnsupportedRedisDriverException.class).hasMessageContaining("Lettuce");
    }

    /** In an application, the wrapped factory is refused when the context starts, with the failure analysis. */
    @Test
    void wrappedJedisStopsStartupWithAnAnalysis() {
        RedisConnectionFactory wrapped = new Delegating(jedis(), true);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RelockAutoConfiguration.class))
                .withBean(RedisConnectionFactory.class, () -> wrapped).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(UnsupportedRedisDriverException.class);
                    FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("needs the Lettuce driver");
                });
    }

    /** Delegating factory, connection passed through as is. */
    @Test
    void delegatingFactoryWaiterFailsFast() throws Exception {
        RedisConnectionFactory wrapped = new Delegating(jedis(), false);
        probe(wrapped, "direct");
    }

    /** Delegating factory whose connections are JDK proxies (as tracing / transaction wrappers make). */
    @Test
    void proxiedConnectionsWaiterFailsFast() throws Exception {
        RedisConnectionFactory wrapped = new Delegating(jedis(), true);
        probe(wrapped, "proxied");
    }

    private void probe(RedisConnectionFactory factory, String label) throws Exception {
        RedisLockClient client;
        try {
            client = RedisLockClient.builder(factory).build();
        }
        catch (UnsupportedRedisDriverException ex) {
            System.out.println("wrapped jedis: " + label + ": refused at build: " + ex.getMessage());
            return;
        }
        System.out.println("wrapped jedis: " + label + ": build() accepted " + factory.getClass().getName());
        RedisLockClient other = RedisLockClient.builder(redis.newConnectionFactory()).build();
        try {
            ReentrantDistributedLock uncontended = client.getLock("j:free");
            Future<Boolean> free = threads.submit(() -> uncontended.tryLock(1, TimeUnit.SECONDS));
            try {
                System.out.println("wrapped jedis: " + label + ": uncontended tryLock -> " + free.get(10, TimeUnit.SECONDS));
            }
            catch (Exception ex) {
                System.out.println("wrapped jedis: " + label + ": uncontended tryLock -> " + ex);
            }
            ReentrantDistributedLock busy = other.getLock("j:busy");
            assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
            long start = System.nanoTime();
            Future<Boolean> waiter = threads.submit(() -> client.getLock("j:busy").tryLock(2, TimeUnit.SECONDS));
            try {
                Object r = waiter.get(15, TimeUnit.SECONDS);
                System.out.println("wrapped jedis: " + label + ": waiter returned " + r + " after "
                        + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
            catch (java.util.concurrent.ExecutionException ex) {
                System.out.println("wrapped jedis: " + label + ": waiter failed after " + (System.nanoTime() - start) / 1_000_000
                        + " ms: " + ex.getCause());
            }
            catch (TimeoutException ex) {
                System.out.println("wrapped jedis: " + label + ": waiter HUNG > 15 s (waitTime 2 s)");
                StackTraceElement[] stack = null;
                for (var e : Thread.getAllStackTraces().entrySet()) {
                    for (StackTraceElement el : e.getValue()) {
                        if (el.getClassName().contains("PubSubConnection")) {
                            stack = e.getValue();
                        }
                    }
                }
                if (stack != null) {
                    for (int i = 0; i < Math.min(25, stack.length); i++) {
                        System.out.println("wrapped jedis:    at " + stack[i]);
                    }
                }
                waiter.cancel(true);
                throw new AssertionError("waiter hung with " + label + " wrapper");
            }
            finally {
                busy.unlock();
            }
        }
        finally {
            other.close();
            Future<?> closing = threads.submit(client::close);
            try {
                closing.get(10, TimeUnit.SECONDS);
            }
            catch (TimeoutException ex) {
                System.out.println("wrapped jedis: " + label + ": client.close() HUNG > 10 s");
            }
        }
    }

    static final class Delegating implements RedisConnectionFactory {

        private final RedisConnectionFactory target;
        private final boolean proxy;

        Delegating(RedisConnectionFactory target, boolean proxy) {
            this.target = target;
            this.proxy = proxy;
        }

        @Override
        public RedisConnection getConnection() {
            RedisConnection connection = target.getConnection();
            if (!proxy) {
                return connection;
            }
            InvocationHandler handler = (p, method, args) -> {
                try {
                    return method.invoke(connection, args);
                }
                catch (InvocationTargetException ex) {
                    throw ex.getTargetException();
                }
            };
            return (RedisConnection) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {RedisConnection.class}, handler);
        }

        @Override
        public RedisClusterConnection getClusterConnection() {
            return target.getClusterConnection();
        }

        @Override
        public boolean getConvertPipelineAndTxResults() {
            return target.getConvertPipelineAndTxResults();
        }

        @Override
        public RedisSentinelConnection getSentinelConnection() {
            return target.getSentinelConnection();
        }

        @Override
        public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
            return target.translateExceptionIfPossible(ex);
        }
    }
}
