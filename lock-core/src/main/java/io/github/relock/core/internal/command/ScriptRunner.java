package io.github.relock.core.internal.command;

import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.UnsupportedRedisDriverException;
import io.github.relock.core.internal.redis.AsyncScripts;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.redis.RedisErrors;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * Runs the lock's scripts on connections from the factory, through Lettuce's asynchronous commands (see
 * {@link AsyncScripts}). Also the one place that knows whether the connections are cluster ones.
 */
public final class ScriptRunner {

    /** What the blocking callers wait for at most while no connection has told its timeout: Lettuce's default. */
    private static final Duration UNKNOWN_TIMEOUT = Duration.ofSeconds(60);

    private final RedisConnectionFactory factory;
    /**
     * Whether releases are announced with SPUBLISH: decided as {@code ReleaseSubscriptions} decides where to
     * listen (a cluster-aware Lettuce factory), so a factory that wraps one announces and listens classically.
     */
    private final boolean sharded;
    /** Whether the factory gives cluster connections; null until a connection has told. */
    private volatile @Nullable Boolean cluster;

    /** The connections' command timeout, as the first of them told; null until one has. */
    private volatile @Nullable Duration commandTimeout;

    private final ClientScheduler scheduler;
    private final Executor opener;
    private final AsyncScripts scripts;
    /**
     * The connection every command but a WAIT's is sent on: opened on first use and kept, since Lettuce sends many
     * commands at once on one connection. So a command neither borrows nor gives back a connection (a pooled
     * factory's borrow may wait, which no relock thread may); one that failed for want of Redis is given back, and the
     * next command opens a fresh one.
     */
    private final AtomicReference<@Nullable RedisConnection> held = new AtomicReference<>();
    private final ReentrantLock opening = new ReentrantLock();
    /**
     * Connections of their own that calls gave back in good order (a script and its WAIT), kept for the next such
     * call: opening one waits for Redis, and a server that accepts connections but answers nothing would hold the
     * opener until the connect timeout. At most {@value #IDLE_KEPT}.
     */
    private final Deque<RedisConnection> idle = new ConcurrentLinkedDeque<>();
    private static final int IDLE_KEPT = 2;
    private volatile boolean closed;

    /** Whether {@code factory} gives Lettuce cluster connections: then releases are announced with SPUBLISH. */
    public static boolean isCluster(RedisConnectionFactory factory) {
        return factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
    }

    /** @param opener where {@link #send} opens a connection of its own, which waits for Redis */
    public ScriptRunner(RedisConnectionFactory factory, ClientScheduler scheduler, Executor opener) {
        this.factory = factory;
        this.opener = opener;
        this.scheduler = scheduler;
        this.scripts = new AsyncScripts(scheduler);
        this.sharded = isCluster(factory);
        try {
            // the one connection opened at build: it also shows what a wrapping factory's driver is
            query(connection -> {
                RedisDriverCheck.requireLettuceInside(factory, connection);
                return null;
            });
        }
        catch (UnsupportedRedisDriverException ex) {
            throw ex;
        }
        catch (RuntimeException ex) {
            // Redis is down at start-up (or the pool is exhausted): the first connection that opens tells
        }
    }

    RedisConnectionFactory factory() {
        return factory;
    }

    /** True if known to be a cluster, false if known not to be, null while Redis has not been reached yet. */
    @Nullable Boolean cluster() {
        return cluster;
    }

    /**
     * Runs a call on a connection of its own and waits for it: for the one connection opened at build, which
     * checks the driver.
     */
    private <T> @Nullable T query(Function<RedisConnection, @Nullable T> call) {
        try (RedisConnection connection = connection()) {
            noteConnection(connection);
            return call.apply(connection);
        }
    }

    /** What the first connection tells: whether it is a cluster's, and its command timeout. */
    private void noteConnection(RedisConnection connection) {
        if (cluster == null) {
            cluster = connection instanceof RedisClusterConnection;
        }
        if (commandTimeout == null && RedisDriverCheck.isLettuce(connection.getNativeConnection())) {
            commandTimeout = AsyncScripts.timeout(AsyncScripts.commands(connection));
        }
    }

    /** The command timeout of the connections, as Lettuce applies it; a minute until a connection has told. */
    Duration commandTimeout() {
        Duration known = commandTimeout;
        return known != null ? known : UNKNOWN_TIMEOUT;
    }

    /**
     * Sends a command on a connection of its own: one an earlier call gave back in good order, or one opened on the
     * opener (opening waits for Redis: a pooled factory's borrow, a dedicated connection's connect; not here, since
     * this may run on the driver's thread, which the connect itself needs). Fails, as the future does, with a
     * {@code DataAccessException}; nothing waits for the reply.
     */
    <T> CompletableFuture<T> send(Function<RedisConnection, CompletableFuture<T>> command) {
        RedisConnection kept = closed ? null : idle.pollFirst();
        if (kept != null) {
            return sendOn(kept, command);
        }
        CompletableFuture<CompletableFuture<T>> sent = new CompletableFuture<>();
        try {
            opener.execute(() -> sent.complete(sendOnOwn(command)));
        }
        catch (RejectedExecutionException closing) {
            sent.complete(sendOnOwn(command)); // the client is closing: its last calls open theirs here
        }
        return sent.thenCompose(reply -> reply);
    }

    private <T> CompletableFuture<T> sendOnOwn(Function<RedisConnection, CompletableFuture<T>> command) {
        RedisConnection connection;
        try {
            connection = connection();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(RedisErrors.translate(ex));
        }
        return sendOn(connection, command);
    }

    private <T> CompletableFuture<T> sendOn(RedisConnection connection,
            Function<RedisConnection, CompletableFuture<T>> command) {
        CompletableFuture<T> reply;
        try {
            noteConnection(connection);
            reply = command.apply(connection);
        }
        catch (RuntimeException ex) {
            reply = CompletableFuture.failedFuture(RedisErrors.translate(ex));
        }
        reply.whenComplete((value, failure) -> {
            // one that failed may still be busy in Redis (a WAIT that timed out): it goes back to the factory
            if (failure != null || closed || idle.size() >= IDLE_KEPT) {
                giveBack(connection);
            }
            else {
                idle.addFirst(connection);
                if (closed && idle.remove(connection)) {
                    giveBack(connection);
                }
            }
        });
        return reply;
    }

    private void giveBack(RedisConnection connection) {
        try {
            scheduler.execute(connection::close);
        }
        catch (RejectedExecutionException closing) {
            connection.close(); // the client is closing: nothing else runs on the scheduler any more
        }
    }

    /**
     * Sends a command on the connection this runner keeps (see {@link #held}). Fails, as the future does, with a
     * {@code DataAccessException}; nothing waits for the reply.
     */
    <T> CompletableFuture<T> sendOnHeld(Function<RedisConnection, CompletableFuture<T>> command) {
        if (closed) {
            return sendOnOwn(command); // what a closed client still sends (a waiter leaving its place) keeps nothing open
        }
        RedisConnection connection;
        CompletableFuture<T> reply;
        try {
            connection = held();
            reply = command.apply(connection);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(RedisErrors.translate(ex));
        }
        return reply.whenComplete((value, failure) -> {
            if (failure != null && RedisErrors.translate(failure) instanceof RedisConnectionFailureException
                    && held.compareAndSet(connection, null)) {
                giveBack(connection); // a broken connection is not used again; its commands in flight still end
            }
        });
    }

    private RedisConnection held() {
        RedisConnection connection = held.get();
        if (connection != null) {
            return connection;
        }
        opening.lock(); // not a monitor: a virtual thread waiting here does not pin
        try {
            connection = held.get();
            if (connection == null) {
                connection = connection();
                try {
                    noteConnection(connection);
                    commands(connection); // a pooled connection is borrowed here, once
                }
                catch (RuntimeException ex) {
                    connection.close();
                    throw ex;
                }
                held.set(connection);
                if (closed && held.compareAndSet(connection, null)) {
                    connection.close(); // close() came meanwhile; this command still goes out on it
                }
            }
            return connection;
        }
        finally {
            opening.unlock();
        }
    }

    /** Gives back the connection this runner keeps, if it has one: the client is closing. */
    public void close() {
        closed = true;
        for (RedisConnection kept = idle.pollFirst(); kept != null; kept = idle.pollFirst()) {
            giveBack(kept);
        }
        RedisConnection connection = held.getAndSet(null);
        if (connection != null) {
            try {
                connection.close();
            }
            catch (RuntimeException ex) {
                // closing: nothing more is sent on it
            }
        }
    }

    /**
     * A connection from the factory. A pool that cannot hand one out throws Spring's {@link PoolException},
     * which is not a {@link DataAccessException}: it becomes one here, so that every caller treats it as Redis
     * not answering (nothing was sent, so a release may safely be sent again).
     */
    private RedisConnection connection() {
        try {
            return factory.getConnection();
        }
        catch (PoolException ex) {
            throw RedisErrors.translate(ex, "get a Redis connection"); // Redis not answering
        }
    }

    /**
     * Runs a script on {@code connection}. While Redis Cluster migrates the lock's slot, a node refuses a script
     * whose keys are only partly there with {@code TRYAGAIN} (a lock's fencing key outlives its hash, so taking a
     * freed lock hits this for the whole migration): the script did not run, so it is sent again after a pause.
     */
    <T> CompletableFuture<T> evalAsync(RedisConnection connection, LuaScript<T> script, int numKeys,
            byte[]... keysAndArgs) {
        return scripts.eval(commands(connection), announcing(connection, script).sent(), numKeys, keysAndArgs);
    }

    /** On a cluster of a Lettuce factory, {@code script} announced in the lock's shard only, where ShardedPubSubConnection listens. */
    private <T> LuaScript<T> announcing(RedisConnection connection, LuaScript<T> script) {
        return sharded && connection instanceof RedisClusterConnection ? script.onCluster() : script;
    }

    /**
     * Lettuce's asynchronous commands under {@code connection}.
     *
     * @throws UnsupportedRedisDriverException for Jedis behind a wrapper that could not connect at build
     */
    static RedisClusterAsyncCommands<byte[], byte[]> commands(RedisConnection connection) {
        if (!RedisDriverCheck.isLettuce(connection.getNativeConnection())) {
            throw RedisDriverCheck.refused(connection.getClass().getName(), true);
        }
        return AsyncScripts.commands(connection);
    }

    /**
     * Runs a script on the connection this runner keeps: the way every script of a lock is sent but those followed by a
     * WAIT. The
     * future fails with a {@code DataAccessException}, or with an {@link IllegalStateException} if Redis returned
     * no reply (see {@link #answered}).
     */
    public <T> CompletableFuture<T> evalAsync(LuaScript<T> script, int numKeys, byte[]... keysAndArgs) {
        return answered(sendOnHeld(connection -> evalAsync(connection, script, numKeys, keysAndArgs)));
    }

    /** As {@link #evalAsync(LuaScript, int, byte[]...)}, sent as EVAL with the script's source (see {@link AsyncScripts#evalSource}). */
    public <T> CompletableFuture<T> evalSourceAsync(LuaScript<T> script, int numKeys, byte[]... keysAndArgs) {
        return answered(sendOnHeld(connection -> scripts.evalSource(commands(connection),
                announcing(connection, script).sent(), numKeys, keysAndArgs)));
    }

    /** Sends a command of Lettuce's own on the connection this runner keeps; a read may answer null. */
    <T> CompletableFuture<@Nullable T> call(Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
        return sendOnHeld(connection -> AsyncScripts.call(commands(connection), command));
    }

    /** The scripts' sender, for the calls that run on a dedicated connection (see {@code OwnConnection}). */
    AsyncScripts scripts() {
        return scripts;
    }

    /**
     * A call that must answer: no reply means MULTI or a pipeline swallowed it, which the lock cannot use, and the
     * future fails with an {@link IllegalStateException}.
     */
    static <T> CompletableFuture<T> answered(CompletableFuture<@Nullable T> reply) {
        return reply.thenApply(value -> {
            if (value == null) {
                throw new IllegalStateException("Redis returned no reply; relock does not run inside MULTI or a pipeline");
            }
            return value;
        });
    }
}
