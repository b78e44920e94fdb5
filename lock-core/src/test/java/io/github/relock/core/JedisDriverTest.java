package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisServer;

/**
 * A Jedis connection factory is refused with a message that says how to switch to Lettuce: never a hang in
 * the first waiter's subscribe, never a silent fallback. Also when lettuce-core is not on the class path.
 */
@Timeout(60)
@Tag("redis-version-independent")
class JedisDriverTest {

    private RedisServer server;
    private JedisConnectionFactory jedis;

    @BeforeEach
    void start() {
        server = RedisServer.start();
        jedis = new JedisConnectionFactory(new RedisStandaloneConfiguration(server.host(), server.port()));
        jedis.afterPropertiesSet();
        jedis.start();
    }

    @AfterEach
    void stop() {
        jedis.destroy();
        server.close();
    }

    @Test
    void buildingOverAJedisFactoryFailsAndSaysHowToSwitchToLettuce() {
        assertThat(jedis.getConnection().ping()).as("a working Jedis factory").isEqualTo("PONG");
        assertThatThrownBy(() -> RedisLockClient.builder(jedis).build())
                .isInstanceOf(UnsupportedRedisDriverException.class)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(JedisConnectionFactory.class.getName())
                .hasMessageContaining("LettuceConnectionFactory")
                .hasMessageContaining("spring.data.redis.client-type=lettuce")
                .satisfies(ex -> assertThat(((UnsupportedRedisDriverException) ex).getFactoryClassName())
                        .isEqualTo(JedisConnectionFactory.class.getName()));
    }

    @Test
    void aJedisFactoryBehindAWrapperIsRefusedAtBuildByAskingAConnection() {
        RedisConnectionFactory wrapped = wrap(jedis, new AtomicBoolean(true));
        assertThatThrownBy(() -> RedisLockClient.builder(wrapped).build())
                .isInstanceOf(UnsupportedRedisDriverException.class)
                .hasMessageContaining("spring.data.redis.client-type=lettuce");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // Jedis's subscribe ignores interrupts
    void aWrappedJedisThatCannotConnectAtBuildIsRefusedAtTheFirstWaitInsteadOfHanging() throws Exception {
        AtomicBoolean reachable = new AtomicBoolean(false);
        RedisConnectionFactory wrapped = wrap(jedis, reachable);
        RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory()).build();
        RedisLockClient client = RedisLockClient.builder(wrapped).build(); // no connection to ask yet
        reachable.set(true);
        try {
            ReentrantDistributedLock held = holder.getLock("busy");
            held.lock();
            assertThatThrownBy(() -> client.getLock("busy").tryLock(5, TimeUnit.SECONDS))
                    .hasStackTraceContaining(UnsupportedRedisDriverException.class.getName())
                    .hasStackTraceContaining("spring.data.redis.client-type=lettuce");
            held.unlock();
        }
        finally {
            client.close();
            holder.close();
        }
    }

    /** A not-shared Lettuce connection connects only when asked what it is. */
    @Test
    void aWrappedLettuceFactoryBuildsWhileRedisIsDownAndLocksOnceItIsBack() throws Exception {
        LettuceConnectionFactory lettuce = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()));
        lettuce.setShareNativeConnection(false);
        lettuce.afterPropertiesSet();
        lettuce.start();
        try {
            server.stop();
            RedisLockClient client = RedisLockClient.builder(wrap(lettuce, new AtomicBoolean(true))).build();
            try {
                server.restart();
                ReentrantDistributedLock lock = client.getLock("back");
                assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
                lock.unlock();
            }
            finally {
                client.close();
            }
        }
        finally {
            lettuce.destroy();
        }
    }

    /** A factory that hides what it wraps, and cannot connect while {@code reachable} is false. */
    private static RedisConnectionFactory wrap(RedisConnectionFactory target, AtomicBoolean reachable) {
        return (RedisConnectionFactory) Proxy.newProxyInstance(JedisDriverTest.class.getClassLoader(),
                new Class<?>[] {RedisConnectionFactory.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && !reachable.get()) {
                        throw new RedisConnectionFailureException("not reachable yet");
                    }
                    try {
                        return method.invoke(target, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
    }

    /**
     * A Jedis-only application: lock-core, spring-data-redis and Jedis in a class loader without lettuce-core.
     * Building the client must give the same clear exception, not a {@link NoClassDefFoundError} from a class
     * that names Lettuce's.
     */
    @Test
    void withoutLettuceOnTheClassPathTheRefusalSaysToAddIt() throws Exception {
        try (URLClassLoader jedisOnly = new URLClassLoader(classPathWithoutLettuce(), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> jedisOnly.loadClass("io.lettuce.core.RedisClient"))
                    .isInstanceOf(ClassNotFoundException.class);
            // the classes that name Lettuce's load and initialize all the same
            Class.forName("io.github.relock.core.internal.command.OwnConnection", true, jedisOnly);
            Class.forName("io.github.relock.core.internal.command.LockCommands", true, jedisOnly);

            Object configuration = jedisOnly.loadClass(RedisStandaloneConfiguration.class.getName())
                    .getConstructor(String.class, int.class).newInstance(server.host(), server.port());
            Class<?> factoryType = jedisOnly.loadClass(JedisConnectionFactory.class.getName());
            Object factory = factoryType.getConstructor(configuration.getClass()).newInstance(configuration);
            factoryType.getMethod("afterPropertiesSet").invoke(factory);
            Class<?> clientType = jedisOnly.loadClass(RedisLockClient.class.getName());
            Object builder = clientType.getMethod("builder", jedisOnly.loadClass(RedisConnectionFactory.class.getName()))
                    .invoke(null, factory);
            Method build = builder.getClass().getMethod("build");
            try {
                assertThatThrownBy(() -> build.invoke(builder)).isInstanceOf(InvocationTargetException.class)
                        .cause()
                        .satisfies(ex -> assertThat(ex.getClass().getName())
                                .isEqualTo(UnsupportedRedisDriverException.class.getName()))
                        .hasMessageContaining("lettuce-core is not on the class path")
                        .hasMessageContaining("add io.lettuce:lettuce-core");
            }
            finally {
                factoryType.getMethod("destroy").invoke(factory);
            }
        }
    }

    /** The test class path (surefire passes it in a property when it runs from a manifest-only jar) minus Lettuce. */
    private static URL[] classPathWithoutLettuce() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isBlank() && !new File(entry).getName().startsWith("lettuce-core")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        assertThat(urls).as("class path entries").hasSizeGreaterThan(5);
        return urls.toArray(URL[]::new);
    }
}
