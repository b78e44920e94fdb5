package io.github.relock.spring.coroutines

import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.InvalidLockConfigurationException
import io.github.relock.spring.LockNotAcquiredException
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeoutOrNull
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.FilteredClassLoader
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.random.Random

/**
 * `@DistributedLock` on Kotlin `suspend` functions and `Flow`s, on a real redis-server: held while the coroutine
 * runs, re-entered by nested calls of the same coroutine, released on return, error and cancellation, and
 * never while a cancelled body still runs its `finally`.
 */
@Timeout(120)
class CoroutineLockTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Packing::class.java)
        .withBean(Shipping::class.java)
        .withPropertyValues("relock.wait-time=1s")

    @BeforeEach
    fun reset() {
        Shipping.inside.set(0)
        Shipping.insideByKey.clear()
        Shipping.overlaps.set(0)
        Shipping.bodies.set(0)
    }

    @Test
    fun `a suspend function holds its lock while it runs, and a nested call on the same key re-enters`() =
        runner.test { context ->
            val result = runBlocking { context.getBean(Shipping::class.java).ship("o-1") }
            assertThat(result).isEqualTo("shipped packed o-1 (lock held: 1)")
            assertNothingLeft(context, "o-1")
        }

    @Test
    fun `coroutines on two instances never hold one key together`() = runner.test { first ->
        runner.run { second ->
            runBlocking(Dispatchers.Default) {
                (1..40).map { i ->
                    val shipping = (if (i % 2 == 0) first else second).getBean(Shipping::class.java)
                    async { shipping.hold("o-2", 5) }
                }.awaitAll()
            }
            assertThat(Shipping.bodies.get()).isEqualTo(40)
            assertThat(Shipping.overlaps.get()).isZero()
            assertNothingLeft(first, "o-2")
        }
    }

    @Test
    fun `not acquired in time throws LockNotAcquiredException and never runs the body`() = runner.test { context ->
        holdingElsewhere(context, "o-3") {
            assertThatThrownBy { runBlocking { context.getBean(Shipping::class.java).now("o-3") } }
                .isInstanceOf(LockNotAcquiredException::class.java).hasMessageContaining("shipping:o-3")
        }
        assertThat(Shipping.bodies.get()).isZero()
    }

    @Test
    fun `a suspend fallback runs instead, with the exception`() = runner.test { context ->
        holdingElsewhere(context, "o-4") {
            val answer = runBlocking { context.getBean(Shipping::class.java).orLater("o-4") }
            assertThat(answer).isEqualTo("later: shipping:o-4")
        }
        assertThat(Shipping.bodies.get()).isZero()
    }

    @Test
    fun `an error releases the lock and reaches the caller`() = runner.test { context ->
        assertThatThrownBy { runBlocking { context.getBean(Shipping::class.java).fail("o-5") } }
            .isInstanceOf(IllegalStateException::class.java).hasMessage("boom")
        assertNothingLeft(context, "o-5")
    }

    /** The next holder polls from the moment of cancel; it must not get in before the body's finally ended. */
    @Test
    fun `cancelling releases the lock only after the body's finally has run`() = runner.test { context ->
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            runBlocking {
                val entered = CompletableDeferred<Unit>()
                val job = launch(Dispatchers.Default) { context.getBean(Shipping::class.java).slowToStop("o-6", entered) }
                entered.await()
                job.cancel()
                val lock = other.getLock(LockNames.of("shipping", "o-6"), other.newOwner()) // polled on another thread
                await().atMost(Duration.ofSeconds(10)).until { lock.tryLock(0, TimeUnit.SECONDS) }
                assertThat(Shipping.inside.get()).`as`("the cancelled body had finished its finally").isZero()
                lock.unlock()
                job.join()
            }
            assertNothingLeft(context, "o-6")
        } finally {
            other.close()
        }
    }

    @Test
    fun `a cancelled Flow releases its lock only after the flow's finally has run`() = runner.test { context ->
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            runBlocking {
                val first = context.getBean(Shipping::class.java).slowFlow("o-8").take(1).toList()
                assertThat(first).containsExactly(1)
                val lock = other.getLock(LockNames.of("shipping", "o-8"), other.newOwner())
                await().atMost(Duration.ofSeconds(10)).until { lock.tryLock(0, TimeUnit.SECONDS) }
                assertThat(Shipping.inside.get()).`as`("the cancelled flow had finished its finally").isZero()
                lock.unlock()
            }
            assertNothingLeft(context, "o-8")
        } finally {
            other.close()
        }
    }

    @Test
    fun `a Flow holds its lock until it completes, and a partly collected Flow releases it`() = runner.test { context ->
        val shipping = context.getBean(Shipping::class.java)
        val lockKey = RelockContexts.redisKeys(context, LockNames.of("shipping", "o-7")).lock()
        val seen = runBlocking { shipping.progress("o-7").toList() }
        assertThat(seen).containsExactly(1, 2, 3)
        assertThat(Shipping.heldWhileEmitting.get()).isEqualTo(3)
        assertNothingLeft(context, "o-7")

        assertThat(runBlocking { shipping.progress("o-7").take(1).toList() }).containsExactly(1)
        await().atMost(Duration.ofSeconds(5)).until { redis.commands().exists(lockKey) == 0L }
        assertNothingLeft(context, "o-7")
    }

    @Test
    fun `ten thousand cancelled calls leave no hold and no subscription`() = runner.test { context ->
        val shipping = context.getBean(Shipping::class.java)
        val random = Random(42)
        runBlocking(Dispatchers.Default) {
            coroutineScope {
                repeat(10_000) { i ->
                    val cancelAfter = random.nextLong(0, 4)
                    launch { withTimeoutOrNull(cancelAfter) { shipping.hold("k-${i % 20}", 2) } }
                }
            }
        }
        assertThat(Shipping.overlaps.get()).isZero()
        await().atMost(Duration.ofSeconds(30)).untilAsserted {
            for (i in 0 until 20) {
                assertNothingLeft(context, "k-$i")
            }
            assertThat(Shipping.inside.get()).isZero()
        }
    }

    @Test
    fun `without kotlinx-coroutines-reactor a locked suspend function stops startup and says what to add`() =
        runner.withClassLoader(FilteredClassLoader("kotlinx.coroutines.reactor")).test { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).isInstanceOf(InvalidLockConfigurationException::class.java)
                .hasMessageContaining("kotlinx-coroutines-reactor").hasMessageContaining("suspend function")
        }

    /** Runs a test in a context; JUnit runs only test methods that return nothing. */
    private fun ApplicationContextRunner.test(body: (AssertableApplicationContext) -> Unit) {
        run(body)
    }

    private fun holdingElsewhere(context: ApplicationContext, id: String, body: () -> Unit) {
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            val lock = other.getLock(LockNames.of("shipping", id))
            assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isTrue()
            try {
                body()
            } finally {
                lock.unlock()
            }
        } finally {
            other.close()
        }
    }

    private fun assertNothingLeft(context: ApplicationContext, id: String) {
        val keys = RelockContexts.redisKeys(context, LockNames.of("shipping", id))
        assertThat(redis.commands().exists(keys.lock())).`as`("lock key of $id").isZero()
        // a client keeps a lock's channel 500 ms after its last waiter left
        await().atMost(Duration.ofSeconds(3)).untilAsserted {
            assertThat(redis.commands().pubsubNumsub(keys.releaseChannel())[keys.releaseChannel()] ?: 0L)
                .`as`("subscribers of $id").isZero()
        }
        assertThat(context.getBean(RedisLockClient::class.java).heldLocks()).isEmpty()
    }

    open class Packing {
        @DistributedLock(name = "shipping", key = "#id")
        open suspend fun pack(id: String, client: RedisLockClient): String {
            delay(10)
            return "packed $id (lock held: ${client.heldLocks().size})"
        }
    }

    open class Shipping(private val packing: Packing, private val client: RedisLockClient) {

        companion object {
            val insideByKey = ConcurrentHashMap<String, AtomicInteger>()
            val inside = AtomicInteger()
            val overlaps = AtomicInteger()
            val bodies = AtomicInteger()
            val heldWhileEmitting = AtomicInteger()
        }

        @DistributedLock(name = "shipping", key = "#id")
        open suspend fun ship(id: String): String {
            delay(10)
            return "shipped " + packing.pack(id, client)
        }

        @DistributedLock(name = "shipping", key = "#id", waitTime = "10s")
        open suspend fun hold(id: String, millis: Long) {
            enter(id)
            try {
                delay(millis)
            } finally {
                leave(id)
            }
        }

        @DistributedLock(name = "shipping", key = "#id", waitTime = "0s")
        open suspend fun now(id: String): String {
            bodies.incrementAndGet()
            return id
        }

        @DistributedLock(name = "shipping", key = "#id", waitTime = "0s", fallbackMethod = "later")
        open suspend fun orLater(id: String): String {
            bodies.incrementAndGet()
            return id
        }

        open suspend fun later(id: String, ex: LockNotAcquiredException): String {
            delay(1)
            return "later: " + ex.lockName
        }

        @DistributedLock(name = "shipping", key = "#id")
        open suspend fun fail(id: String): String {
            delay(1)
            throw IllegalStateException("boom")
        }

        /** Its cleanup after a cancel takes 300 ms; it counts as inside until then. */
        @DistributedLock(name = "shipping", key = "#id")
        open suspend fun slowToStop(id: String, entered: CompletableDeferred<Unit>) {
            enter(id)
            try {
                entered.complete(Unit)
                delay(60_000)
            } catch (ex: CancellationException) {
                withContext(NonCancellable) { delay(300) } // cleanup that suspends: the cancel returns before it ends
                throw ex
            } finally {
                leave(id)
            }
        }

        @DistributedLock(name = "shipping", key = "#id")
        open fun progress(id: String): Flow<Int> = flow {
            heldWhileEmitting.set(0)
            for (step in 1..3) {
                if (redis.commands().exists(client.redisKeys(LockNames.of("shipping", id)).lock()) == 1L) {
                    heldWhileEmitting.incrementAndGet()
                }
                emit(step)
                delay(20)
            }
        }

        /** Counts the body in under its key; two in at once under one key is an overlap. */
        /** Emits, then is cancelled by take(1); its cleanup suspends for 300 ms, counted as inside until done. */
        @DistributedLock(name = "shipping", key = "#id")
        open fun slowFlow(id: String): Flow<Int> = flow {
            enter(id)
            try {
                emit(1)
                delay(60_000)
            } finally {
                withContext(NonCancellable) { delay(300) }
                leave(id)
            }
        }

        private fun enter(id: String) {
            bodies.incrementAndGet()
            inside.incrementAndGet()
            if (insideByKey.computeIfAbsent(id) { AtomicInteger() }.incrementAndGet() > 1) {
                overlaps.incrementAndGet()
            }
        }

        private fun leave(id: String) {
            insideByKey.getValue(id).decrementAndGet()
            inside.decrementAndGet()
        }
    }
}
