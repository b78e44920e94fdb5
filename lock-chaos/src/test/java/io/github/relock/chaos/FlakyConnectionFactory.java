package io.github.relock.chaos;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;

/**
 * A connection factory whose pool runs dry while {@link ChildFaults} says so: {@code getConnection()} then
 * throws Spring's {@code PoolException}, which is not a {@link DataAccessException}.
 */
final class FlakyConnectionFactory implements RedisConnectionFactory {

    private final RedisConnectionFactory delegate;

    FlakyConnectionFactory(RedisConnectionFactory delegate) {
        this.delegate = delegate;
    }

    @Override
    public RedisConnection getConnection() {
        ChildFaults.throwFromPoolIfDue();
        return delegate.getConnection();
    }

    @Override
    public RedisClusterConnection getClusterConnection() {
        ChildFaults.throwFromPoolIfDue();
        return delegate.getClusterConnection();
    }

    @Override
    public RedisSentinelConnection getSentinelConnection() {
        ChildFaults.throwFromPoolIfDue();
        return delegate.getSentinelConnection();
    }

    @Override
    public boolean getConvertPipelineAndTxResults() {
        return delegate.getConvertPipelineAndTxResults();
    }

    @Override
    public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
        return delegate.translateExceptionIfPossible(ex);
    }
}
