package io.github.relock.core;

import java.time.Duration;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A real connection factory that can be told to fail for a while the way a connection pool fails:
 * with Spring's {@link PoolException}, which is not a {@link DataAccessException}.
 */
final class FaultyConnectionFactory extends DelegatingConnectionFactory {

    private volatile long failingUntilNanos;

    FaultyConnectionFactory(RedisConnectionFactory delegate) {
        super(delegate);
    }

    /** Every {@link #getConnection()} from now on throws, for {@code duration}. */
    void failFor(Duration duration) {
        failingUntilNanos = System.nanoTime() + duration.toNanos();
    }

    private void maybeFail() {
        if (System.nanoTime() - failingUntilNanos < 0) {
            throw new PoolException("Could not get a resource from the pool (injected)");
        }
    }

    @Override
    public RedisConnection getConnection() {
        maybeFail();
        return super.getConnection();
    }

    @Override
    public RedisClusterConnection getClusterConnection() {
        maybeFail();
        return super.getClusterConnection();
    }
}
