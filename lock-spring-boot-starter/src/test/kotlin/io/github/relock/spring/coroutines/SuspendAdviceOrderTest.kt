package io.github.relock.spring.coroutines

import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.LockNotAcquiredException
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.core.Ordered
import java.io.IOException
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * Other advice around relock's on a suspend function (inside it: Spring calls the function, documented to release at
 * the cancel; outside it: relock is still innermost), and suspend functions behind a JDK interface proxy.
 */
@Timeout(90)
class SuspendAdviceOrderTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private fun runner(passThroughOrder: Int): ApplicationContextRunner = RelockContexts.on(redis)
        .withBean(Advised::class.java)
        .withBean(AdvisedInner::class.java)
        .withBean("passThrough", org.springframework.aop.Advisor::class.java, { passThroughAdvisor(passThroughOrder) })
        .withPropertyValues("relock.wait-time=2s")

    private val inside = runner(Ordered.LOWEST_PRECEDENCE)
    private val outside = runner(Ordered.HIGHEST_PRECEDENCE)

    @BeforeEach
    fun reset() {
        Advised.insideByKey.clear()
        Advised.overlaps.set(0)
        Advised.inside.set(0)
    }

    @Test
    fun `with advice inside relock's the suspend function is still locked and re-enters`() = inside.test { context ->
        lockedAndReentrant(context)
    }

    @Test
    fun `with advice outside relock's the suspend function is locked and re-enters`() = outside.test { context ->
        lockedAndReentrant(context)
    }

    @Test
    fun `with advice inside relock's two clients never overlap`() = inside.test { first ->
        inside.test { second ->
            runBlocking(Dispatchers.Default) {
                (1..40).map { i ->
                    val advised = (if (i % 2 == 0) first else second).getBean(Advised::class.java)
                    async { advised.hold("o-1", 3) }
                }.awaitAll()
            }
            assertThat(Advised.overlaps.get()).isZero()
        }
    }

    /** Characterises the documented limit: with advice inside, the next holder may get in during cleanup. */
    @Test
    fun `with advice inside relock's a cancel releases before the body's cleanup has ended (documented)`() =
        inside.test { context ->
            val cleanupRunning = cancelledCleanup(context, "c-1")
            println("advice inside relock's: the next holder got in while the cleanup ran: $cleanupRunning")
        }

    @Test
    fun `with advice outside relock's a cancel releases only after the body's cleanup has ended`() =
        outside.test { context ->
            assertThat(cancelledCleanup(context, "c-2")).`as`("the next holder got in during the cleanup").isFalse()
        }

    private fun lockedAndReentrant(context: AssertableApplicationContext) {
        assertThat(context).hasNotFailed()
        val advised = context.getBean(Advised::class.java)
        val key = RelockContexts.redisKeys(context, LockNames.of("order", "o-0")).lock()
        val seen = runBlocking { advised.outer("o-0") }
        assertThat(seen).isEqualTo("held true, inner held true")
        assertThat(redis.commands().exists(key)).isZero()
        assertThat(context.getBean(RedisLockClient::class.java).heldLocks()).isEmpty()
    }

    /** Whether another client took the lock while the cancelled body's 400 ms cleanup was still running. */
    private fun cancelledCleanup(context: AssertableApplicationContext, id: String): Boolean {
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            return runBlocking {
                val entered = CompletableDeferred<Unit>()
                val job = launch(Dispatchers.Default) { context.getBean(Advised::class.java).slowToStop(id, entered) }
                entered.await()
                job.cancel()
                val lock = other.getLock(LockNames.of("order", id), other.newOwner())
                await().atMost(Duration.ofSeconds(10)).until { lock.tryLock(0, TimeUnit.SECONDS) }
                val during = Advised.inside.get() != 0
                lock.unlock()
                job.join()
                during
            }
        } finally {
            other.close()
        }
    }

    open class AdvisedInner(private val client: RedisLockClient) {
        @PassThrough
        @DistributedLock(name = "order", key = "#id", waitTime = "0s")
        open suspend fun inner(id: String): Boolean {
            delay(5)
            return redis.commands().exists(client.redisKeys(LockNames.of("order", id)).lock()) == 1L
        }
    }

    open class Advised(private val inner: AdvisedInner, private val client: RedisLockClient) {

        companion object {
            val insideByKey = ConcurrentHashMap<String, AtomicInteger>()
            val overlaps = AtomicInteger()
            val inside = AtomicInteger()
        }

        @PassThrough
        @DistributedLock(name = "order", key = "#id")
        open suspend fun outer(id: String): String {
            val held = redis.commands().exists(client.redisKeys(LockNames.of("order", id)).lock()) == 1L
            delay(5)
            return "held $held, inner held ${inner.inner(id)}"
        }

        @PassThrough
        @DistributedLock(name = "order", key = "#id", waitTime = "20s")
        open suspend fun hold(id: String, millis: Long) {
            if (insideByKey.computeIfAbsent(id) { AtomicInteger() }.incrementAndGet() > 1) {
                overlaps.incrementAndGet()
            }
            try {
                delay(millis)
            } finally {
                insideByKey.getValue(id).decrementAndGet()
            }
        }

        @PassThrough
        @DistributedLock(name = "order", key = "#id")
        open suspend fun slowToStop(id: String, entered: CompletableDeferred<Unit>) = slowToStop(inside, entered)
    }
}

/** A suspend function behind a JDK proxy (an interface), as with spring.aop.proxy-target-class=false. */
@Timeout(60)
class SuspendJdkProxyTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    interface Api {
        suspend fun ship(id: String): String
        suspend fun failNow(id: String): String
        suspend fun failLater(id: String): String
    }

    open class ApiImpl(private val client: RedisLockClient) : Api {
        @DistributedLock(name = "api", key = "#id")
        override suspend fun ship(id: String): String {
            delay(5)
            return "held " + (redis.commands().exists(client.redisKeys(LockNames.of("api", id)).lock()) == 1L)
        }

        @DistributedLock(name = "api", key = "#id")
        override suspend fun failNow(id: String): String = throw IOException("now")

        @DistributedLock(name = "api", key = "#id")
        override suspend fun failLater(id: String): String {
            delay(5)
            throw IOException("later")
        }
    }

    private val runner = RelockContexts.on(redis)
        .withBean(ApiImpl::class.java)
        .withPropertyValues("relock.wait-time=0s", "spring.aop.proxy-target-class=false")

    @Test
    fun `a suspend function behind a JDK proxy is locked`() = runner.test { context ->
        val api = context.getBean(Api::class.java)
        assertThat(java.lang.reflect.Proxy.isProxyClass(api.javaClass)).isTrue()
        assertThat(runBlocking { api.ship("j-1") }).isEqualTo("held true")
    }

    @Test
    fun `checked exceptions from a suspend function behind a JDK proxy reach the caller unwrapped`() =
        runner.test { context ->
            val api = context.getBean(Api::class.java)
            assertThatThrownBy { runBlocking { api.failNow("j-2") } }.isExactlyInstanceOf(IOException::class.java)
            assertThatThrownBy { runBlocking { api.failLater("j-3") } }.isExactlyInstanceOf(IOException::class.java)
        }

    @Test
    fun `not acquired behind a JDK proxy is LockNotAcquiredException`() = runner.test { context ->
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            val lock = other.getLock(LockNames.of("api", "j-4"))
            assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isTrue()
            assertThatThrownBy { runBlocking { context.getBean(Api::class.java).ship("j-4") } }
                .isExactlyInstanceOf(LockNotAcquiredException::class.java)
            lock.unlock()
        } finally {
            other.close()
        }
    }
}
