package io.github.relock.core.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.DelegatingConnectionFactory;

/** A factory that wraps another one, as tracing and metrics wrappers do. */
public final class WrappingFactory {

    private WrappingFactory() {
    }

    /**
     * A factory that hands out its delegate's connections behind a JDK proxy, as tracing and metrics wrappers
     * do: the connection is Lettuce's underneath, but not a LettuceConnection by its class.
     */
    public static RedisConnectionFactory wrapped(RedisConnectionFactory delegate) {
        return new DelegatingConnectionFactory(delegate) {

            @Override
            public RedisConnection getConnection() {
                RedisConnection real = super.getConnection();
                return (RedisConnection) Proxy.newProxyInstance(WrappingFactory.class.getClassLoader(),
                        new Class<?>[] {RedisConnection.class}, (proxy, method, args) -> {
                            try {
                                return method.invoke(real, args);
                            }
                            catch (InvocationTargetException ex) {
                                throw ex.getCause();
                            }
                        });
            }
        };
    }
}
