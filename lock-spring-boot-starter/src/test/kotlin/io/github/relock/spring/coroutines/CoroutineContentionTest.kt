package io.github.relock.spring.coroutines

import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.LockNotAcquiredException
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ApplicationContext
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import kotlin.random.Random

/**
 * Two application contexts (two clients) on one redis-server, many coroutines on a few keys, cancelled at
 * random in every way a caller can: withTimeout, Job.cancel, take(n), first(). A body counts itself in under its
 * key before its first suspension and out after its cleanup; two in at once under one key is an overlap.
 */
@Timeout(180)
class CoroutineContentionTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()

        const val KEYS = 6
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Hammered::class.java)
        .withPropertyValues("relock.wait-time=20s")

    @BeforeEach
    fun reset() {
        Hammered.insideByKey.clear()
        Hammered.overlaps.set(0)
        Hammered.entered.set(0)
        Hammered.inside.set(0)
        Hammered.overlapSamples.clear()
    }

    @Test
    fun `randomly cancelled suspend calls and Flow collections on two clients never overlap and leave nothing`() =
        runner.test { first ->
            runner.test { second ->
              // -Drelock.hammer.rounds=N repeats it, to hunt a rare race
              repeat(Integer.getInteger("relock.hammer.rounds", 1)) {
                val seed = System.nanoTime()
                val random = Random(seed)
                val calls = AtomicLong()
                val deadline = System.nanoTime() + Duration.ofSeconds(25).toNanos()
                runBlocking(Dispatchers.Default) {
                    coroutineScope {
                        var i = 0
                        while (System.nanoTime() < deadline && i < 20_000) {
                            val hammered = (if (random.nextBoolean()) first else second).getBean(Hammered::class.java)
                            val key = "k-${random.nextInt(KEYS)}"
                            val way = random.nextInt(7)
                            val cancelAfter = random.nextLong(0, 6)
                            val job = launch {
                              try {
                                calls.incrementAndGet()
                                when (way) {
                                    0 -> withTimeoutOrNull(cancelAfter) { hammered.hold(key, 2) }
                                    1 -> hammered.hold(key, 1)
                                    2 -> withTimeoutOrNull(cancelAfter) { hammered.rows(key).toList() }
                                    3 -> hammered.rows(key).take(1).toList()
                                    4 -> hammered.rows(key).first()
                                    5 -> withTimeoutOrNull(cancelAfter) { hammered.nested(key) }
                                    else -> hammered.rows(key).toList()
                                }
                              } catch (ranOut: LockNotAcquiredException) {
                                  println("wait ran out (seed $seed, way $way): " + whatHolds(key, first, second))
                                  throw ranOut
                              }
                            }
                            if (way == 1 || way == 6) {
                                launch { delay(cancelAfter); job.cancel() }
                            }
                            i++
                            if (i % 64 == 0) {
                                yield()
                                delay(1)
                            }
                        }
                    }
                }
                println("hammer seed $seed: ${calls.get()} calls, ${Hammered.entered.get()} bodies entered, "
                    + "${Hammered.overlaps.get()} overlaps ${Hammered.overlapSamples.take(5)}")
                assertThat(Hammered.overlaps.get()).`as`("overlaps (seed $seed)").isZero()
                await().atMost(Duration.ofSeconds(20)).untilAsserted {
                    assertThat(Hammered.inside.get()).isZero()
                    for (k in 0 until KEYS) {
                        assertNothingLeft(first, "k-$k")
                        assertNothingLeft(second, "k-$k")
                    }
                    assertThat(redis.commands().keys("*")).`as`("keys left in Redis (fencing marks are kept by design)")
                        .allMatch { !it.contains("{hammer:") || it.endsWith(":fence") }
                }
              }
            }
        }

    /** The lock's state in Redis and in each client, to tell a hold nobody gives back from a wake-up lost. */
    private fun whatHolds(id: String, vararg contexts: ApplicationContext): String {
        val keys = RelockContexts.redisKeys(contexts[0], LockNames.of("hammer", id))
        val redis = redis.commands()
        val lock = keys.lock()
        val turns = "$lock:turn"
        val held = contexts.map { context ->
            context.getBean(RedisLockClient::class.java).heldLocks().filter { it.key() == lock }.map { it.ownerId() } }
        return "$lock holds ${redis.hgetall(lock)} for ${redis.pttl(lock)} ms, turns '${redis.get(turns)}' for " +
            "${redis.pttl(turns)} ms, ${redis.pubsubNumsub(keys.releaseChannel())[keys.releaseChannel()]} " +
            "subscribers, ${Hammered.insideByKey[id]} bodies inside; held per client: $held"
    }

    private fun assertNothingLeft(context: ApplicationContext, id: String) {
        val keys = RelockContexts.redisKeys(context, LockNames.of("hammer", id))
        assertThat(redis.commands().exists(keys.lock())).`as`("lock key of $id").isZero()
        // a client keeps a lock's channel 500 ms after its last waiter left
        await().atMost(Duration.ofSeconds(3)).untilAsserted {
            assertThat(redis.commands().pubsubNumsub(keys.releaseChannel())[keys.releaseChannel()] ?: 0L)
                .`as`("subscribers of $id").isZero()
        }
        assertThat(context.getBean(RedisLockClient::class.java).heldLocks()).isEmpty()
    }

    open class Hammered {

        companion object {
            val insideByKey = ConcurrentHashMap<String, AtomicInteger>()
            val overlaps = AtomicInteger()
            val entered = AtomicInteger()
            val inside = AtomicInteger()
            val overlapSamples: MutableList<String> = java.util.Collections.synchronizedList(mutableListOf())

            fun enter(id: String, how: String) {
                entered.incrementAndGet()
                inside.incrementAndGet()
                if (insideByKey.computeIfAbsent(id) { AtomicInteger() }.incrementAndGet() > 1) {
                    overlaps.incrementAndGet()
                    overlapSamples.add("$how:$id")
                }
            }

            fun leave(id: String) {
                insideByKey.getValue(id).decrementAndGet()
                inside.decrementAndGet()
            }
        }

        @DistributedLock(name = "hammer", key = "#id")
        open suspend fun hold(id: String, millis: Long) {
            enter(id, "suspend")
            try {
                delay(millis)
            } finally {
                withContext(NonCancellable) { delay(1) } // a cleanup that suspends
                leave(id)
            }
        }

        @DistributedLock(name = "hammer", key = "#id")
        open suspend fun nested(id: String) {
            hold(id, 1) // on the target, not the proxy: runs under this call's lock
            delay(1)
        }

        @DistributedLock(name = "hammer", key = "#id")
        open fun rows(id: String): Flow<Int> = flow {
            enter(id, "flow")
            try {
                emit(1)
                delay(1)
                emit(2)
                delay(1)
            } finally {
                withContext(NonCancellable) { delay(1) }
                leave(id)
            }
        }
    }
}
