package io.github.relock.spring.coroutines

import io.github.relock.core.LockLostException
import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.LockMode
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOn
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import java.time.Duration
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** Read/write and fair locks, fixed leases, and a Flow that moves its work to another dispatcher. */
@Timeout(60)
class SuspendModesTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Modes::class.java)
        .withPropertyValues("relock.wait-time=10s")

    @BeforeEach
    fun reset() {
        Modes.inside.set(0)
        Modes.maxInside.set(0)
        Modes.writers.set(0)
        Modes.writerOverlaps.set(0)
    }

    @Test
    fun `readers share, a writer excludes everyone`() = runner.test { context ->
        val modes = context.getBean(Modes::class.java)
        runBlocking(Dispatchers.Default) {
            (1..12).map { i -> async { if (i % 4 == 0) modes.write("rw") else modes.read("rw") } }.awaitAll()
        }
        println("readers at once: ${Modes.maxInside.get()}, writer overlaps: ${Modes.writerOverlaps.get()}")
        assertThat(Modes.maxInside.get()).isGreaterThan(1)
        assertThat(Modes.writerOverlaps.get()).isZero()
    }

    @Test
    fun `a fair lock on a suspend function excludes`() = runner.test { context ->
        val modes = context.getBean(Modes::class.java)
        runBlocking(Dispatchers.Default) { (1..10).map { async { modes.fair("f") } }.awaitAll() }
        assertThat(Modes.maxInside.get()).isEqualTo(1)
    }

    @Test
    fun `a suspend body that outlives its fixed lease fails with LockLostException`() = runner.test { context ->
        val outcome = runBlocking { runCatching { context.getBean(Modes::class.java).outlives("lease") } }
        println("outlived lease: $outcome, cause ${outcome.exceptionOrNull()?.cause}")
        assertThat(outcome.exceptionOrNull()).isInstanceOf(LockLostException::class.java)
    }

    @Test
    fun `control - a Mono that outlives its fixed lease`() = runner.test { context ->
        val outcome = runCatching { context.getBean(Modes::class.java).outlivesMono("lease-mono").block(Duration.ofSeconds(10)) }
        println("Mono outlived lease: $outcome, cause ${outcome.exceptionOrNull()?.cause}")
    }

    @Test
    fun `a Flow whose cleanup runs on Dispatchers IO keeps its lock until the cleanup has ended`() =
        runner.test { context ->
            val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
            try {
                runBlocking {
                    assertThat(context.getBean(Modes::class.java).onIo("io").take(1).toList()).containsExactly(1)
                    val lock = other.getLock(LockNames.of("modes", "io"), other.newOwner())
                    await().atMost(Duration.ofSeconds(10)).until { lock.tryLock(0, TimeUnit.SECONDS) }
                    assertThat(Modes.inside.get()).`as`("the flow's blocking cleanup had ended").isZero()
                    lock.unlock()
                }
            } finally {
                other.close()
            }
        }

    open class Modes {

        companion object {
            val inside = AtomicInteger()
            val maxInside = AtomicInteger()
            val writers = AtomicInteger()
            val writerOverlaps = AtomicInteger()
        }

        private fun enter() {
            val now = inside.incrementAndGet()
            maxInside.accumulateAndGet(now) { a, b -> maxOf(a, b) }
        }

        @DistributedLock(name = "modes-rw", key = "#id", mode = LockMode.READ)
        open suspend fun read(id: String) {
            enter()
            if (writers.get() > 0) writerOverlaps.incrementAndGet()
            try {
                delay(30)
            } finally {
                inside.decrementAndGet()
            }
        }

        @DistributedLock(name = "modes-rw", key = "#id", mode = LockMode.WRITE)
        open suspend fun write(id: String) {
            writers.incrementAndGet()
            if (inside.get() > 0 || writers.get() > 1) writerOverlaps.incrementAndGet()
            try {
                delay(30)
                if (inside.get() > 0 || writers.get() > 1) writerOverlaps.incrementAndGet()
            } finally {
                writers.decrementAndGet()
            }
        }

        @DistributedLock(name = "modes-fair", key = "#id", fair = true)
        open suspend fun fair(id: String) {
            enter()
            try {
                delay(10)
            } finally {
                inside.decrementAndGet()
            }
        }

        @DistributedLock(name = "modes", key = "#id", leaseTime = "300ms")
        open suspend fun outlives(id: String): String {
            delay(900)
            return id
        }

        @DistributedLock(name = "modes", key = "#id", leaseTime = "300ms")
        open fun outlivesMono(id: String): reactor.core.publisher.Mono<String> =
            reactor.core.publisher.Mono.just(id).delayElement(Duration.ofMillis(900))

        @DistributedLock(name = "modes", key = "#id")
        open fun onIo(id: String): Flow<Int> = flow {
            inside.incrementAndGet()
            try {
                emit(1)
                delay(60_000)
            } finally {
                Thread.sleep(400) // blocking cleanup on the IO thread
                inside.decrementAndGet()
            }
        }.flowOn(Dispatchers.IO)
    }
}
