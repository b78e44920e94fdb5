package io.github.relock.spring.coroutines

import io.github.relock.core.LockLostException
import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Disabled
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference

/** A lock lost while a suspend body or a Flow runs; the application context closed while coroutines wait or run. */
@Timeout(60)
class CoroutineLossAndCloseTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Work::class.java)
        .withPropertyValues("relock.wait-time=30s", "relock.watchdog-timeout=1s")

    @BeforeEach
    fun reset() {
        Work.ended.set(null)
    }

    @Test
    fun `a suspend call whose lock is deleted fails with LockLostException and its body is stopped`() =
        runner.test { context ->
            val work = context.getBean(Work::class.java)
            val started = System.nanoTime()
            val outcome = runBlocking {
                val entered = CompletableDeferred<Unit>()
                val call = async(Dispatchers.Default) { runCatching { work.long("l-1", entered) } }
                entered.await()
                redis.commands().del(RelockContexts.redisKeys(context, LockNames.of("work", "l-1")).lock())
                withTimeout(10_000) { call.await() }
            }
            val millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
            println("lost suspend call: $outcome after $millis ms; body ended with ${Work.ended.get()}")
            assertThat(outcome.exceptionOrNull()).isInstanceOf(LockLostException::class.java)
            assertThat(millis).isLessThan(5_000)
            assertThat(Work.ended.get()).isEqualTo("cancelled")
            assertThat(context.getBean(RedisLockClient::class.java).heldLocks()).isEmpty()
        }

    @Test
    fun `a Flow whose lock is deleted fails with LockLostException`() = runner.test { context ->
        val work = context.getBean(Work::class.java)
        val outcome = runBlocking {
            val entered = CompletableDeferred<Unit>()
            val call = async(Dispatchers.Default) { runCatching { work.longFlow("l-2", entered).toList() } }
            entered.await()
            redis.commands().del(RelockContexts.redisKeys(context, LockNames.of("work", "l-2")).lock())
            withTimeout(10_000) { call.await() }
        }
        println("lost flow: $outcome; body ended with ${Work.ended.get()}")
        assertThat(outcome.exceptionOrNull()).isInstanceOf(LockLostException::class.java)
        assertThat(Work.ended.get()).isEqualTo("cancelled")
    }

    @Test
    fun `closing the context ends coroutines that wait for a lock`() {
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            val lock = other.getLock(LockNames.of("work", "c-1"))
            assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isTrue()
            runner.test { context ->
                val work = context.getBean(Work::class.java)
                val started = System.nanoTime()
                val outcomes = runBlocking(Dispatchers.Default) {
                    val calls = (1..5).map { async { runCatching { work.short("c-1") } } }
                    delay(300)
                    context.close()
                    withTimeout(15_000) { calls.map { it.await() } }
                }
                val millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                println("after close: ${outcomes.map { it.exceptionOrNull()?.javaClass?.simpleName }} in $millis ms")
                assertThat(outcomes).allMatch { it.isFailure }
                assertThat(millis).isLessThan(5_000)
            }
            lock.unlock()
        } finally {
            other.close()
        }
    }

    /** After close nothing renews the lease: another client may get in while the body runs; the call must then not succeed. */
    @Test
    @Disabled("Known limit, not specific to coroutines (blocking calls alike): closing the client ends renewal without failing calls still running")
    fun `closing the context while a locked body runs never lets the call succeed beside another holder`() =
        runner.test { context ->
            val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
            try {
                val work = context.getBean(Work::class.java)
                val lock = other.getLock(LockNames.of("work", "c-2"), other.newOwner())
                var otherGotInWhileRunning = false
                val outcome = runBlocking(Dispatchers.Default) {
                    val entered = CompletableDeferred<Unit>()
                    val call = async { runCatching { work.long("c-2", entered, 3_000) } }
                    entered.await()
                    context.close()
                    while (!call.isCompleted) {
                        if (lock.tryLock(0, TimeUnit.SECONDS)) {
                            otherGotInWhileRunning = Work.ended.get() == null
                            lock.unlock()
                            break
                        }
                        delay(50)
                    }
                    withTimeout(15_000) { call.await() }
                }
                println("body running at close: call gave $outcome; another client got in while it ran: "
                    + otherGotInWhileRunning)
                assertThat(otherGotInWhileRunning && outcome.isSuccess)
                    .`as`("the call succeeded though another client held its lock while it ran").isFalse()
            } finally {
                other.close()
            }
        }

    /** The same with a blocking method: whether the close problem is the coroutine path's or everyone's. */
    @Test
    fun `control - closing the context while a blocking locked method runs`() = runner.test { context ->
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            val work = context.getBean(Work::class.java)
            val lock = other.getLock(LockNames.of("work", "c-3"), other.newOwner())
            val entered = java.util.concurrent.CountDownLatch(1)
            val call = java.util.concurrent.CompletableFuture.supplyAsync { runCatching { work.longBlocking("c-3", entered) } }
            assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue()
            context.close()
            var otherGotInWhileRunning = false
            while (!call.isDone) {
                if (lock.tryLock(0, TimeUnit.SECONDS)) {
                    otherGotInWhileRunning = !call.isDone
                    lock.unlock()
                    break
                }
                Thread.sleep(50)
            }
            val outcome = call.get(15, TimeUnit.SECONDS)
            println("blocking method running at close: call gave $outcome; another client got in while it ran: "
                + otherGotInWhileRunning)
        } finally {
            other.close()
        }
    }

    open class Work {

        @DistributedLock(name = "work", key = "#id")
        open fun longBlocking(id: String, entered: java.util.concurrent.CountDownLatch): String {
            entered.countDown()
            Thread.sleep(3_000)
            return id
        }


        companion object {
            val ended = AtomicReference<String?>()
        }

        @DistributedLock(name = "work", key = "#id")
        open suspend fun long(id: String, entered: CompletableDeferred<Unit>, millis: Long = 8_000): String {
            try {
                entered.complete(Unit)
                delay(millis)
                ended.set("returned")
                return id
            } catch (ex: CancellationException) {
                ended.set("cancelled")
                throw ex
            }
        }

        @DistributedLock(name = "work", key = "#id")
        open suspend fun short(id: String): String {
            delay(1)
            return id
        }

        @DistributedLock(name = "work", key = "#id")
        open fun longFlow(id: String, entered: CompletableDeferred<Unit>): Flow<Int> = flow {
            try {
                emit(1)
                entered.complete(Unit)
                delay(8_000)
                emit(2)
                ended.set("completed")
            } catch (ex: CancellationException) {
                ended.set("cancelled")
                throw ex
            }
        }
    }
}
