package io.github.relock.core;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;

/** A factory that does what its delegate does: tests override the part they break or wrap. */
public class DelegatingConnectionFactory implements RedisConnectionFactory {

    private final RedisConnectionFactory delegate;

    public DelegatingConnectionFactory(RedisConnectionFactory delegate) {
        this.delegate = delegate;
    }

    @Override
    public RedisConnection getConnection() {
        return delegate.getConnection();
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
}
