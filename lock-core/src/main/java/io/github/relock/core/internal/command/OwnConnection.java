package io.github.relock.core.internal.command;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

import io.github.relock.core.internal.redis.RedisErrors;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;

/**
 * A connection that nothing else uses while a script and its {@code WAIT} run on it. WAIT waits for the
 * replication of what its connection wrote, and blocks that connection meanwhile: on the connection
 * Lettuce shares with the rest of the application, every other command would queue behind it. So they run
 * on a dedicated connection (the one spring-data-redis uses for pipelines: pooled if the factory pools),
 * also when a factory wraps Lettuce's: only Lettuce is accepted (see {@link RedisDriverCheck}).
 */
final class OwnConnection {

    private static final Logger log = LoggerFactory.getLogger(OwnConnection.class);

    /** One connection's script calls and WAITs: a WAIT waits for what this very connection wrote. */
    interface ScriptConnection {

        <T> @Nullable T eval(LuaScript<T> script, int numKeys, byte[]... keysAndArgs);

        /** How many replicas acknowledged everything this connection wrote, waiting up to {@code timeoutMillis}. */
        long awaitReplicas(int replicas, long timeoutMillis);

        /** The connection's command timeout, which a factory that wraps Lettuce's does not tell; null if unknown. */
        @Nullable Duration commandTimeout();
    }

    private OwnConnection() {
    }

    /** Runs {@code work} on a connection that nothing else uses while it runs. */
    static <T> T run(RedisConnection connection, Function<ScriptConnection, T> work) {
        if (connection instanceof RedisClusterConnection) {
            // refused at start-up where the topology was known; a WAIT on a cluster could not name the node
            throw new InvalidDataAccessApiUsageException("minReplicas is not supported on Redis Cluster");
        }
        // a factory that wraps Lettuce's (tracing, metrics) hands out connections of another class: Lettuce's underneath
        return Lettuce.onDedicated(connection, work);
    }

    /** One dedicated Lettuce connection, for the scripts and WAITs of one call. */
    private static final class Lettuce implements ScriptConnection {

        /** A backstop only: Lettuce times commands out itself, at the factory's command timeout. */
        private static final long REPLY_BACKSTOP_MILLIS = 30_000;

        private final RedisClusterAsyncCommands<byte[], byte[]> commands;
        /** The server's id for this connection before the first script: see {@link #awaitReplicas}. */
        private final Future<Long> connectionIdBefore;
        /** Which server that was: client ids are counted per server, so another one may hand out the same. */
        private final Future<String> serverBefore;
        /** A connection that routes by command (reads from replicas), and its routing to restore when done. */
        private final @Nullable StatefulRedisMasterReplicaConnection<byte[], byte[]> routed;
        private final @Nullable ReadFrom readFrom;
        private final @Nullable Duration commandTimeout;

        private Lettuce(RedisClusterAsyncCommands<byte[], byte[]> commands) {
            this.commands = commands;
            StatefulConnection<byte[], byte[]> stateful = commands instanceof RedisAsyncCommands<byte[], byte[]> standalone
                    ? standalone.getStatefulConnection() : null;
            this.commandTimeout = stateful != null ? stateful.getTimeout() : null;
            if (stateful != null) {
                // a factory's pipelining flush policy may hold what is sent until the pipeline closes: sent at once here
                stateful.setAutoFlushCommands(true);
            }
            if (stateful instanceof StatefulRedisMasterReplicaConnection<byte[], byte[]> routed) {
                // a factory reading from replicas sends CLIENT and INFO there: the bracket must be the primary's
                this.routed = routed;
                this.readFrom = routed.getReadFrom();
                routed.setReadFrom(ReadFrom.UPSTREAM);
            }
            else {
                this.routed = null;
                this.readFrom = null;
            }
            this.connectionIdBefore = commands.clientId();
            this.serverBefore = commands.info("server");
        }

        /** While a pipeline is open the connection hands out its dedicated native connection; nothing is queued. */
        @SuppressWarnings("unchecked")
        static <T> T onDedicated(RedisConnection connection, Function<ScriptConnection, T> work) {
            connection.openPipeline();
            try {
                if (!RedisDriverCheck.isLettuce(connection.getNativeConnection())) {
                    // Jedis behind a wrapper that could not connect at build: the refusal its first wait would get
                    throw RedisDriverCheck.refused(connection.getClass().getName(), true);
                }
                if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
                    // a WAIT anywhere else would answer for writes of other callers, or after a silent reconnect
                    throw new InvalidDataAccessApiUsageException("minReplicas needs a Lettuce connection, not "
                            + connection.getNativeConnection().getClass().getName());
                }
                Lettuce own = new Lettuce((RedisClusterAsyncCommands<byte[], byte[]>) commands);
                try {
                    return work.apply(own);
                }
                finally {
                    own.restoreRouting();
                }
            }
            finally {
                connection.closePipeline();
            }
        }

        @Override
        public @Nullable Duration commandTimeout() {
            return commandTimeout;
        }

        /** A pooled connection goes back as it came: the application's pipelines read where it said. */
        private void restoreRouting() {
            if (routed != null && readFrom != null) {
                routed.setReadFrom(readFrom);
            }
        }

        @Override
        public <T> @Nullable T eval(LuaScript<T> script, int numKeys, byte[]... keysAndArgs) {
            byte[][] keys = new byte[numKeys][];
            byte[][] args = new byte[keysAndArgs.length - numKeys][];
            System.arraycopy(keysAndArgs, 0, keys, 0, numKeys);
            System.arraycopy(keysAndArgs, numKeys, args, 0, args.length);
            ScriptOutputType type = script.returnType() == ReturnType.MULTI ? ScriptOutputType.MULTI
                    : ScriptOutputType.INTEGER;
            try {
                return await(commands.<T>evalsha(script.getSha1(), type, keys, args), 0);
            }
            catch (RedisSystemException ex) {
                if (!(ex.getCause() instanceof RedisNoScriptException)) {
                    throw ex;
                }
                // EVAL also caches the script, so the next EVALSHA finds it
                return await(commands.<T>eval(script.sourceBytes(), type, keys, args), 0);
            }
        }

        /**
         * WAIT, bracketed by CLIENT ID and the server's run id. Lettuce reconnects by itself and sends again
         * what was in flight: a WAIT sent again on a new connection (after a failover, to the new primary)
         * waits for nothing this connection wrote there and answers at once. If the connection, or the server
         * it is on, changed between the first script and the WAIT, the acknowledgement is worth nothing: 0.
         * The id alone cannot tell: each server counts its own, so the new primary may give the same one.
         */
        @Override
        public long awaitReplicas(int replicas, long waitMillis) {
            // WAIT answers by its own timeout
            Future<Long> reply = commands.waitForReplication(replicas, waitMillis);
            Future<Long> connectionIdAfter = commands.clientId();
            Future<String> serverAfter = commands.info("server");
            Long acks = await(reply, waitMillis);
            Long before = await(connectionIdBefore, 0);
            Long after = await(connectionIdAfter, 0);
            String runBefore = runId(await(serverBefore, 0));
            if (before == null || !before.equals(after) || runBefore == null
                    || !runBefore.equals(runId(await(serverAfter, 0)))) {
                log.warn("The connection was re-established, or moved to another server, between a lock script "
                        + "and its WAIT; counting the acknowledgement as none");
                return 0;
            }
            return acks == null ? 0 : acks;
        }

        /** The {@code run_id} in an INFO server reply: a new one each time a server process starts. */
        static @Nullable String runId(@Nullable String info) {
            if (info == null) {
                return null;
            }
            int start = info.indexOf("run_id:");
            if (start < 0) {
                return null;
            }
            int end = info.indexOf('\r', start);
            return info.substring(start + "run_id:".length(), end < 0 ? info.length() : end).trim();
        }

        /** The reply, waiting up to {@code extraMillis} beyond the backstop (a WAIT's own timeout). */
        private static <T> @Nullable T await(Future<T> reply, long extraMillis) {
            long millis = extraMillis + REPLY_BACKSTOP_MILLIS;
            try {
                return reply.get(millis, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new RedisSystemException("Interrupted while waiting for a reply", ex);
            }
            catch (ExecutionException ex) {
                throw RedisErrors.translate(ex.getCause() != null ? ex.getCause() : ex);
            }
            catch (TimeoutException ex) {
                throw new QueryTimeoutException("No reply within " + millis + " ms", ex);
            }
        }
    }
}
