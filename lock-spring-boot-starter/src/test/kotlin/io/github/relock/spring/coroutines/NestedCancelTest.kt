package io.github.relock.spring.coroutines

import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Disabled
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ApplicationContext
import java.time.Duration
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * The outer lock of a cancelled call must outlive the cleanup of everything the call ran, nested locked calls on
 * other keys included: without relock, a nested suspend call's finally ends before its caller's code goes on.
 */
@Timeout(60)
class NestedCancelTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Leaf::class.java)
        .withBean(Root::class.java)
        .withPropertyValues("relock.wait-time=5s")


    /** A nested call's cleanup ended by the time the next holder got the outer key. Each test waits for its own. */
    @Test
    fun `control - a nested call on a plain object (no proxy) ends its cleanup before the outer lock goes`() =
        runner.test { context ->
            assertThat(outerFreedDuringNestedCleanup(context) { root, entered -> root.callsPlainObject("n-0", entered) })
                .`as`("the next holder of the outer key got in during the nested cleanup").isFalse()
        }

    /** Spring runs any suspend call through an advised bean's proxy in a coroutine of its own, without the caller's Job. */
    @Test
    @Disabled("Known limit (README): Spring runs a proxied suspend call in a coroutine of its own, which relock cannot wait for")
    fun `a nested unlocked call through a Spring proxy ends its cleanup before the outer lock goes`() =
        runner.test { context ->
            assertThat(outerFreedDuringNestedCleanup(context) { root, entered -> root.callsPlain("n-00", entered) })
                .`as`("the next holder of the outer key got in during the nested cleanup").isFalse()
        }

    @Test
    fun `a cancelled call's lock outlives the cleanup of a nested locked suspend call on another key`() =
        runner.test { context ->
            assertThat(outerFreedDuringNestedCleanup(context) { root, entered -> root.callsLocked("n-1", entered) })
                .`as`("the next holder of the outer key got in during the nested cleanup").isFalse()
        }

    @Test
    @Disabled("Known limit (README): a Flow's collection is not a child of its collector's job, so an outer lock can go while a nested locked Flow's cleanup runs")
    fun `a cancelled call's lock outlives the cleanup of a nested locked Flow on another key`() = runner.test { context ->
        assertThat(outerFreedDuringNestedCleanup(context) { root, entered -> root.collectsLocked("n-2", entered) })
            .`as`("the next holder of the outer key got in during the nested cleanup").isFalse()
    }

    @Test
    fun `a timeout inside the locked body reaches the caller and releases the lock`() = runner.test { context ->
        assertThatThrownBy { runBlocking { context.getBean(Leaf::class.java).timesOut("t-1") } }
            .isInstanceOf(TimeoutCancellationException::class.java)
        assertNothingLeft(context, "leaf", "t-1")
    }

    @Test
    fun `a CancellationException thrown by the locked body reaches the caller and releases the lock`() =
        runner.test { context ->
            val outcome = runBlocking { runCatching { context.getBean(Leaf::class.java).abort("t-2") } }
            assertThat(outcome.exceptionOrNull()).isInstanceOf(CancellationException::class.java).hasMessage("abort")
            assertNothingLeft(context, "leaf", "t-2")
        }

    /** Cancels the root call once the nested one runs; true if the root key was taken while the nested cleanup ran. */
    private fun outerFreedDuringNestedCleanup(
        context: ApplicationContext,
        call: suspend (Root, CompletableDeferred<Unit>) -> Unit,
    ): Boolean {
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            return runBlocking {
                val entered = CompletableDeferred<Unit>()
                val job = launch(Dispatchers.Default) { call(context.getBean(Root::class.java), entered) }
                entered.await()
                job.cancel()
                val lock = other.getLock(LockNames.of("root", Root.lastId), other.newOwner())
                await().atMost(Duration.ofSeconds(10)).until { lock.tryLock(0, TimeUnit.SECONDS) }
                val during = Leaf.cleaning.get() != 0
                lock.unlock()
                job.join()
                await().atMost(Duration.ofSeconds(5)).until { Leaf.cleaning.get() == 0 } // no leftovers for the next test
                during
            }
        } finally {
            other.close()
        }
    }

    private fun assertNothingLeft(context: ApplicationContext, name: String, id: String) {
        assertThat(redis.commands().exists(RelockContexts.redisKeys(context, LockNames.of(name, id)).lock())).isZero()
        assertThat(context.getBean(RedisLockClient::class.java).heldLocks()).isEmpty()
    }

    open class Leaf {

        companion object {
            val cleaning = AtomicInteger()

            /** The nested work: 400 ms of non-cancellable cleanup after a cancel, part of the root's critical section. */
            suspend fun work(entered: CompletableDeferred<Unit>) = slowToStop(cleaning, entered)
        }

        @DistributedLock(name = "leaf", key = "#id")
        open suspend fun locked(id: String, entered: CompletableDeferred<Unit>) = work(entered)

        @DistributedLock(name = "leaf", key = "#id")
        open fun lockedFlow(id: String, entered: CompletableDeferred<Unit>): Flow<Int> = flow {
            emit(1)
            work(entered)
        }

        open suspend fun plain(entered: CompletableDeferred<Unit>) = work(entered)

        @DistributedLock(name = "leaf", key = "#id")
        open suspend fun timesOut(id: String): String = withTimeout(20) {
            delay(5_000)
            "late"
        }

        @DistributedLock(name = "leaf", key = "#id")
        open suspend fun abort(id: String): String {
            delay(1)
            throw CancellationException("abort")
        }
    }

    open class Root(private val leaf: Leaf) {

        companion object {
            @Volatile
            var lastId = ""
        }

        @DistributedLock(name = "root", key = "#id")
        open suspend fun callsLocked(id: String, entered: CompletableDeferred<Unit>) {
            lastId = id
            leaf.locked("leaf-of-$id", entered)
        }

        @DistributedLock(name = "root", key = "#id")
        open suspend fun collectsLocked(id: String, entered: CompletableDeferred<Unit>) {
            lastId = id
            leaf.lockedFlow("leaf-of-$id", entered).collect()
        }

        @DistributedLock(name = "root", key = "#id")
        open suspend fun callsPlainObject(id: String, entered: CompletableDeferred<Unit>) {
            lastId = id
            Leaf.work(entered)
        }

        @DistributedLock(name = "root", key = "#id")
        open suspend fun callsPlain(id: String, entered: CompletableDeferred<Unit>) {
            lastId = id
            leaf.plain(entered)
        }
    }
}
