package io.github.relock.spring.coroutines

import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.data.redis.core.StringRedisTemplate
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference

/** Where and in which coroutine context a locked suspend body runs, and what a cancel waits for. */
@Timeout(60)
class SuspendDispatchTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Bodies::class.java)
        .withBean(Controls::class.java)
        .withBean("passThrough", org.springframework.aop.Advisor::class.java, { passThroughAdvisor(0) })
        .withPropertyValues("relock.wait-time=5s", "spring.data.redis.timeout=3s")

    @BeforeEach
    fun reset() {
        Bodies.inside.set(0)
        Bodies.startThread.set(null)
        Bodies.name.set(null)
    }

    /** Without relock a suspend function starts on its caller's thread; under relock it should too. */
    @Test
    fun `the locked body starts on the caller's dispatcher, not on relock's async threads`() = runner.test { context ->
        val bodies = context.getBean(Bodies::class.java)
        val caller = Executors.newSingleThreadExecutor { Thread(it, "caller-thread") }
        try {
            runBlocking(caller.asCoroutineDispatcher()) { bodies.whereNow("t-1") }
            assertThat(Bodies.startThread.get()).startsWith("caller-thread") // debug mode appends " @coroutine#N"
        } finally {
            caller.shutdownNow()
        }
    }

    @Test
    fun `control - through Spring AOP without relock, the body starts on the caller's thread and sees its context`() =
        runner.test { context ->
            val controls = context.getBean(Controls::class.java)
            val caller = Executors.newSingleThreadExecutor { Thread(it, "caller-thread") }
            try {
                runBlocking(caller.asCoroutineDispatcher() + CoroutineName("the-caller")) { controls.whereNow() }
                assertThat(Bodies.startThread.get()).startsWith("caller-thread")
                println("control: CoroutineName seen by a Spring-proxied suspend body: " + Bodies.name.get())
            } finally {
                caller.shutdownNow()
            }
        }

    /**
     * Blocking calls before the first suspension (a suspend function called from Dispatchers.IO may make them)
     * run on relock's small pool of asynchronous threads, which every asynchronous lock call of the client needs.
     */
    @Test
    fun `blocking locked bodies do not hold up other asynchronous lock calls`() = runner.test { context ->
        val bodies = context.getBean(Bodies::class.java)
        val client = context.getBean(RedisLockClient::class.java)
        runBlocking(Dispatchers.IO) {
            val blockers = (1..8).map { i -> launch { bodies.blockThenSuspend("b-$i", 1_500) } }
            delay(300) // the bodies are blocking now
            val started = System.nanoTime()
            val got = client.getLock("unrelated")
                .tryLockAsync(Duration.ofSeconds(5), Duration.ofSeconds(5), client.newOwner()).get(10, TimeUnit.SECONDS)
            val millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
            blockers.forEach { it.join() }
            println("unrelated tryLockAsync took $millis ms while 8 locked bodies blocked; bodies ran on "
                + Bodies.blockThreads)
            assertThat(got).isTrue()
            assertThat(millis).`as`("an unrelated tryLockAsync waited for the blocking bodies").isLessThan(500)
        }
    }

    @Test
    fun `the locked body sees its caller's coroutine context elements`() = runner.test { context ->
        val bodies = context.getBean(Bodies::class.java)
        runBlocking(CoroutineName("the-caller")) { bodies.whereNow("t-2") }
        assertThat(Bodies.name.get()).isEqualTo("the-caller")
    }

    /**
     * A suspend function may call blocking code before it first suspends (its caller chose the dispatcher, say
     * Dispatchers.IO). Under relock that code runs on whichever thread completed the lock's acquisition.
     */
    @Test
    fun `a blocking Redis call at the start of a locked body completes`() = runner.test { context ->
        val bodies = context.getBean(Bodies::class.java)
        val template = context.getBean(StringRedisTemplate::class.java)
        template.opsForValue().set("greeting", "hello")
        val started = System.nanoTime()
        val answer = runBlocking(Dispatchers.IO) {
            runCatching { withTimeout(10_000) { bodies.readBlocking("t-3", template) } }
        }
        val millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
        assertThat(answer.getOrNull()).`as`("result %s after %d ms, started on %s", answer, millis,
            Bodies.startThread.get()).isEqualTo("hello")
        assertThat(millis).isLessThan(2_000)
    }

    @Test
    fun `a cancelled body blocked on Dispatchers IO keeps the lock until it has ended`() = runner.test { context ->
        cancelledWhileBlocked(context) { bodies, entered -> bodies.blockOnIo("t-4", entered) }
    }

    @Test
    fun `a cancelled body in runInterruptible keeps the lock until it has ended`() = runner.test { context ->
        cancelledWhileBlocked(context) { bodies, entered -> bodies.blockInterruptibly("t-5", entered) }
    }

    private fun cancelledWhileBlocked(
        context: org.springframework.context.ApplicationContext,
        call: suspend (Bodies, CompletableDeferred<Unit>) -> Unit,
    ) {
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            val bodies = context.getBean(Bodies::class.java)
            runBlocking {
                val entered = CompletableDeferred<Unit>()
                val job = launch(Dispatchers.Default) { call(bodies, entered) }
                entered.await()
                job.cancel()
                val id = Bodies.lastId.get()
                val lock = other.getLock(LockNames.of("bodies", id), other.newOwner())
                await().atMost(Duration.ofSeconds(10)).until { lock.tryLock(0, TimeUnit.SECONDS) }
                assertThat(Bodies.inside.get()).`as`("the cancelled body had ended").isZero()
                lock.unlock()
                job.join()
            }
        } finally {
            other.close()
        }
    }

    open class Controls {
        @PassThrough
        open suspend fun whereNow() {
            Bodies.startThread.set(Thread.currentThread().name)
            Bodies.name.set(currentCoroutineContext()[CoroutineName]?.name)
            delay(1)
        }
    }

    open class Bodies {

        companion object {
            val inside = AtomicInteger()
            val startThread = AtomicReference<String?>()
            val name = AtomicReference<String?>()
            val lastId = AtomicReference<String>()
            val blockThreads: MutableSet<String> = java.util.concurrent.ConcurrentHashMap.newKeySet()
        }

        @DistributedLock(name = "bodies", key = "#id")
        open suspend fun blockThenSuspend(id: String, millis: Long) {
            blockThreads.add(Thread.currentThread().name.substringBefore(" @"))
            Thread.sleep(millis) // blocking, as a caller on Dispatchers.IO allows
            delay(1)
        }

        @DistributedLock(name = "bodies", key = "#id")
        open suspend fun whereNow(id: String) {
            startThread.set(Thread.currentThread().name)
            name.set(currentCoroutineContext()[CoroutineName]?.name)
            delay(1)
        }

        @DistributedLock(name = "bodies", key = "#id")
        open suspend fun readBlocking(id: String, template: StringRedisTemplate): String? {
            startThread.set(Thread.currentThread().name)
            val value = template.opsForValue().get("greeting") // blocking, as the caller's dispatcher allows
            delay(1)
            return value
        }

        @DistributedLock(name = "bodies", key = "#id")
        open suspend fun blockOnIo(id: String, entered: CompletableDeferred<Unit>) {
            lastId.set(id)
            withContext(Dispatchers.IO) {
                inside.incrementAndGet()
                try {
                    entered.complete(Unit)
                    Thread.sleep(600) // not interruptible by a cancel: the coroutine ends only after it
                } finally {
                    inside.decrementAndGet()
                }
            }
        }

        @DistributedLock(name = "bodies", key = "#id")
        open suspend fun blockInterruptibly(id: String, entered: CompletableDeferred<Unit>) {
            lastId.set(id)
            runInterruptible(Dispatchers.IO) {
                inside.incrementAndGet()
                try {
                    entered.complete(Unit)
                    try {
                        Thread.sleep(60_000)
                    } catch (ex: InterruptedException) {
                        Thread.sleep(400) // cleanup after the interrupt, still inside
                        throw ex
                    }
                } finally {
                    inside.decrementAndGet()
                }
            }
        }
    }
}
