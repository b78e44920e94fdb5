package io.github.relock.spring.coroutines

import java.time.Duration
import org.awaitility.Awaitility
import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Disabled
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ApplicationContext
import java.util.concurrent.atomic.AtomicInteger

/**
 * Nested annotated calls between suspend functions and Flows on one key re-enter (wait time 1 s, so a nested call
 * that waited for its own caller would fail); Flows collected twice, concurrently, or never.
 */
@Timeout(60)
class CoroutineReentryTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Inner::class.java)
        .withBean(Outer::class.java)
        .withPropertyValues("relock.wait-time=1s")

    @BeforeEach
    fun reset() {
        Inner.inside.set(0)
        Inner.maxInside.set(0)
    }

    @Test
    fun `a suspend function collecting a locked Flow on its key re-enters`() = runner.test { context ->
        assertThat(runBlocking { context.getBean(Outer::class.java).suspendCollectsFlow("r-1") }).containsExactly(1, 2)
        assertNothingLeft(context, "r-1")
    }

    @Test
    fun `a Flow calling a locked suspend function on its key re-enters`() = runner.test { context ->
        assertThat(runBlocking { context.getBean(Outer::class.java).flowCallsSuspend("r-2").toList() })
            .containsExactly("inner r-2")
        assertNothingLeft(context, "r-2")
    }

    @Test
    fun `a Flow collecting a locked Flow on its key re-enters`() = runner.test { context ->
        assertThat(runBlocking { context.getBean(Outer::class.java).flowCollectsFlow("r-3").toList() })
            .containsExactly(1, 2)
        assertNothingLeft(context, "r-3")
    }

    @Test
    fun `a suspend function calling a locked suspend function on its key from a different dispatcher re-enters`() =
        runner.test { context ->
            assertThat(runBlocking { context.getBean(Outer::class.java).viaIo("r-4") }).isEqualTo("inner r-4")
            assertNothingLeft(context, "r-4")
        }

    /** async children of the locked body share its owner, so they re-enter side by side: characterised here. */
    @Test
    fun `async children of a locked body re-enter the same key at once`() = runner.test { context ->
        runBlocking { context.getBean(Outer::class.java).fanOut("r-5") }
        println("async children inside the same key at once: ${Inner.maxInside.get()}")
        assertThat(Inner.maxInside.get()).isEqualTo(3)
        assertNothingLeft(context, "r-5")
    }

    /** The README: the owner travels into nested annotated calls, so they re-enter. A blocking one is a nested call too. */
    @Test
    @Disabled("By design (README): a blocking locked method is owned by its thread and waits for the coroutine's lock like any other caller")
    fun `a locked suspend function calling a blocking locked method on its key re-enters`() = runner.test { context ->
        val started = System.nanoTime()
        val outcome = runBlocking { runCatching { context.getBean(Outer::class.java).callsBlocking("r-9") } }
        val millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
        println("suspend -> blocking nested call on the same key: $outcome after $millis ms")
        assertThat(outcome.getOrNull()).isEqualTo("blocking r-9")
    }

    @Test
    fun `a Flow collected twice takes and gives back the lock each time`() = runner.test { context ->
        val flow = context.getBean(Inner::class.java).rows("r-6")
        runBlocking {
            assertThat(flow.toList()).containsExactly(1, 2)
            assertNothingLeft(context, "r-6")
            assertThat(flow.toList()).containsExactly(1, 2)
        }
        assertNothingLeft(context, "r-6")
    }

    @Test
    fun `one Flow collected by two coroutines at once is held by one at a time`() = runner.test { context ->
        val flow = context.getBean(Inner::class.java).slowRows("r-7")
        runBlocking(Dispatchers.Default) {
            listOf(async { flow.toList() }, async { flow.toList() }).awaitAll()
        }
        assertThat(Inner.maxInside.get()).isEqualTo(1)
        assertNothingLeft(context, "r-7")
    }

    @Test
    fun `a Flow that is never collected takes no lock`() = runner.test { context ->
        val inner = context.getBean(Inner::class.java)
        repeat(100) { inner.rows("r-8") }
        assertNothingLeft(context, "r-8")
        assertThat(redis.commands().keys("*")).isEmpty()
    }

    private fun assertNothingLeft(context: ApplicationContext, id: String) {
        val keys = RelockContexts.redisKeys(context, LockNames.of("reentry", id))
        assertThat(redis.commands().exists(keys.lock())).`as`("lock key of $id").isZero()
        // a client keeps a lock's channel 500 ms after its last waiter left
        Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted {
            assertThat(redis.commands().pubsubNumsub(keys.releaseChannel())[keys.releaseChannel()] ?: 0L)
                .`as`("subscribers of $id").isZero()
        }
        assertThat(context.getBean(RedisLockClient::class.java).heldLocks()).isEmpty()
    }

    open class Inner {

        companion object {
            val inside = AtomicInteger()
            val maxInside = AtomicInteger()
        }

        @DistributedLock(name = "reentry", key = "#id")
        open suspend fun call(id: String): String {
            val now = inside.incrementAndGet()
            maxInside.accumulateAndGet(now) { a, b -> maxOf(a, b) }
            try {
                delay(100)
                return "inner $id"
            } finally {
                inside.decrementAndGet()
            }
        }

        @DistributedLock(name = "reentry", key = "#id")
        open fun blocking(id: String): String = "blocking $id"

        @DistributedLock(name = "reentry", key = "#id")
        open fun rows(id: String): Flow<Int> = flow {
            emit(1)
            delay(1)
            emit(2)
        }

        @DistributedLock(name = "reentry", key = "#id", waitTime = "5s")
        open fun slowRows(id: String): Flow<Int> = flow {
            val now = inside.incrementAndGet()
            maxInside.accumulateAndGet(now) { a, b -> maxOf(a, b) }
            try {
                emit(1)
                delay(200)
                emit(2)
            } finally {
                inside.decrementAndGet()
            }
        }
    }

    open class Outer(private val inner: Inner) {

        @DistributedLock(name = "reentry", key = "#id")
        open suspend fun callsBlocking(id: String): String = inner.blocking(id)

        @DistributedLock(name = "reentry", key = "#id")
        open suspend fun suspendCollectsFlow(id: String): List<Int> = inner.rows(id).toList()

        @DistributedLock(name = "reentry", key = "#id")
        open fun flowCallsSuspend(id: String): Flow<String> = flow { emit(inner.call(id)) }

        @DistributedLock(name = "reentry", key = "#id")
        open fun flowCollectsFlow(id: String): Flow<Int> = flow { inner.rows(id).collect { emit(it) } }

        @DistributedLock(name = "reentry", key = "#id")
        open suspend fun viaIo(id: String): String =
            kotlinx.coroutines.withContext(Dispatchers.IO) { inner.call(id) }

        @DistributedLock(name = "reentry", key = "#id")
        open suspend fun fanOut(id: String) = coroutineScope {
            (1..3).map { async { inner.call(id) } }.awaitAll()
        }
    }
}
