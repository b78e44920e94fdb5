package io.github.relock.core.internal.command;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;

import io.github.relock.core.internal.redis.AsyncScripts;
import io.github.relock.core.internal.redis.RedisErrors;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;

/**
 * A connection that nothing else uses while a script and its {@code WAIT} run on it. WAIT waits for the
 * replication of what its connection wrote, and blocks that connection meanwhile: on the connection
 * Lettuce shares with the rest of the application, every other command would queue behind it. So they run
 * on a dedicated connection (the one spring-data-redis uses for pipelines: pooled if the factory pools),
 * also when a factory wraps Lettuce's: only Lettuce is accepted (see {@link RedisDriverCheck}). Each command
 * completes a future; no thread waits for a reply.
 */
final class OwnConnection {

    private static final Logger log = LoggerFactory.getLogger(OwnConnection.class);

    /** One connection's script calls and WAITs: a WAIT waits for what this very connection wrote. */
    interface ScriptConnection {

        /** Runs a script on this connection; the future fails with a {@code DataAccessException}. */
        <T> CompletableFuture<T> eval(LuaScript<T> script, int numKeys, byte[]... keysAndArgs);

        /** How many replicas acknowledged everything this connection wrote, waiting up to {@code timeoutMillis}. */
        CompletableFuture<Long> awaitReplicas(int replicas, long timeoutMillis);

        /** The connection's command timeout, which a factory that wraps Lettuce's does not tell; null if unknown. */
        @Nullable Duration commandTimeout();
    }

    private OwnConnection() {
    }

    /**
     * Runs {@code work} on a connection that nothing else uses until the future it returns completes; then the
     * connection is left as it came (its read-from routing, its pipeline closed), for the caller to give back.
     * The future fails with a {@code DataAccessException}, or with what {@code work} threw.
     */
    static <T> CompletableFuture<T> run(RedisConnection connection, AsyncScripts scripts,
            Function<ScriptConnection, CompletableFuture<T>> work) {
        if (connection instanceof RedisClusterConnection) {
            // refused at start-up where the topology was known; a WAIT on a cluster could not name the node
            return CompletableFuture.failedFuture(
                    new InvalidDataAccessApiUsageException("minReplicas is not supported on Redis Cluster"));
        }
        // a factory that wraps Lettuce's (tracing, metrics) hands out connections of another class: Lettuce's underneath
        return Lettuce.onDedicated(connection, scripts, work);
    }

    /** One dedicated Lettuce connection, for the scripts and WAITs of one call. */
    private static final class Lettuce implements ScriptConnection {

        /** A backstop only: Lettuce times commands out itself, at the factory's command timeout. */
        private static final long REPLY_BACKSTOP_MILLIS = 30_000;

        private final RedisClusterAsyncCommands<byte[], byte[]> commands;
        private final AsyncScripts scripts;
        /** The server's id for this connection before the first script: see {@link #awaitReplicas}. */
        private final CompletableFuture<Long> connectionIdBefore;
        /** Which server that was: client ids are counted per server, so another one may hand out the same. */
        private final CompletableFuture<String> serverBefore;
        /** A connection that routes by command (reads from replicas), and its routing to restore when done. */
        private final @Nullable StatefulRedisMasterReplicaConnection<byte[], byte[]> routed;
        private final @Nullable ReadFrom readFrom;
        private final @Nullable Duration commandTimeout;

        private Lettuce(RedisClusterAsyncCommands<byte[], byte[]> commands, AsyncScripts scripts) {
            this.commands = commands;
            this.scripts = scripts;
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
            this.connectionIdBefore = backstop(AsyncScripts.call(commands, c -> c.clientId()), 0);
            this.serverBefore = backstop(AsyncScripts.call(commands, c -> c.info("server")), 0);
        }

        /** While a pipeline is open the connection hands out its dedicated native connection; nothing is queued. */
        @SuppressWarnings("unchecked")
        static <T> CompletableFuture<T> onDedicated(RedisConnection connection, AsyncScripts scripts,
                Function<ScriptConnection, CompletableFuture<T>> work) {
            Lettuce own;
            try {
                connection.openPipeline();
                if (!RedisDriverCheck.isLettuce(connection.getNativeConnection())) {
                    // Jedis behind a wrapper that could not connect at build: the refusal its first wait would get
                    throw RedisDriverCheck.refused(connection.getClass().getName(), true);
                }
                if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
                    // a WAIT anywhere else would answer for writes of other callers, or after a silent reconnect
                    throw new InvalidDataAccessApiUsageException("minReplicas needs a Lettuce connection, not "
                            + connection.getNativeConnection().getClass().getName());
                }
                own = new Lettuce((RedisClusterAsyncCommands<byte[], byte[]>) commands, scripts);
            }
            catch (RuntimeException ex) {
                end(connection, null);
                return CompletableFuture.failedFuture(RedisErrors.translate(ex));
            }
            CompletableFuture<T> reply;
            try {
                reply = work.apply(own);
            }
            catch (RuntimeException ex) {
                reply = CompletableFuture.failedFuture(RedisErrors.translate(ex));
            }
            // no reply is waited for here: the pipeline holds none (every command went to the native connection)
            return reply.whenComplete((value, failure) -> end(connection, own));
        }

        /** A pooled connection goes back as it came: the application's pipelines read where it said. */
        private static void end(RedisConnection connection, @Nullable Lettuce own) {
            try {
                if (own != null && own.routed != null && own.readFrom != null) {
                    own.routed.setReadFrom(own.readFrom);
                }
            }
            finally {
                try {
                    connection.closePipeline();
                }
                catch (RuntimeException ex) {
                    log.debug("Could not close the pipeline of a connection used for WAIT", ex);
                }
            }
        }

        @Override
        public @Nullable Duration commandTimeout() {
            return commandTimeout;
        }

        @Override
        public <T> CompletableFuture<T> eval(LuaScript<T> script, int numKeys, byte[]... keysAndArgs) {
            // EVALSHA, then EVAL if the server has not seen the script (EVAL also caches it for the next EVALSHA)
            return backstop(scripts.eval(commands, script.sent(), numKeys, keysAndArgs), 0);
        }

        /**
         * WAIT, bracketed by CLIENT ID and the server's run id. Lettuce reconnects by itself and sends again
         * what was in flight: a WAIT sent again on a new connection (after a failover, to the new primary)
         * waits for nothing this connection wrote there and answers at once. If the connection, or the server
         * it is on, changed between the first script and the WAIT, the acknowledgement is worth nothing: 0.
         * The id alone cannot tell: each server counts its own, so the new primary may give the same one.
         */
        @Override
        public CompletableFuture<Long> awaitReplicas(int replicas, long waitMillis) {
            // WAIT answers by its own timeout
            CompletableFuture<Long> reply = backstop(
                    AsyncScripts.call(commands, c -> c.waitForReplication(replicas, waitMillis)), waitMillis);
            CompletableFuture<Long> connectionIdAfter = backstop(AsyncScripts.call(commands, c -> c.clientId()), 0);
            CompletableFuture<String> serverAfter = backstop(AsyncScripts.call(commands, c -> c.info("server")), 0);
            return reply.thenCompose(acks -> CompletableFuture.allOf(connectionIdBefore, connectionIdAfter,
                    serverBefore, serverAfter).handle((all, failure) -> {
                        // a failure is reported as the bracket meets it: the id before, the id after, the servers
                        Long before = connectionIdBefore.join();
                        Long after = connectionIdAfter.join();
                        String runBefore = runId(serverBefore.join());
                        if (before == null || !before.equals(after) || runBefore == null
                                || !runBefore.equals(runId(serverAfter.join()))) {
                            log.warn("The connection was re-established, or moved to another server, between a lock "
                                    + "script and its WAIT; counting the acknowledgement as none");
                            return 0L;
                        }
                        return acks == null ? 0L : acks;
                    }));
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

        /** The reply, failed if it has not come {@code extraMillis} (a WAIT's own timeout) after the backstop. */
        private <T> CompletableFuture<T> backstop(CompletableFuture<T> reply, long extraMillis) {
            return scripts.within(reply, extraMillis + REPLY_BACKSTOP_MILLIS);
        }
    }
}
