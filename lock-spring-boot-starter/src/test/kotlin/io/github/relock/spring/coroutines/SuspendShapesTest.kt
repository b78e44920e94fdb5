package io.github.relock.spring.coroutines

import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import java.io.IOException
import java.util.concurrent.ConcurrentHashMap

@JvmInline
value class OrderId(val value: Long)

@JvmInline
value class Receipt(val text: String)

/** Kotlin shapes of `suspend` functions, each checked against what the same call does without relock. */
@Timeout(60)
class SuspendShapesTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner: ApplicationContextRunner = RelockContexts.on(redis)
        .withBean(Shapes::class.java)
        .withBean(Controls::class.java)
        .withBean("passThrough", org.springframework.aop.Advisor::class.java, { passThroughAdvisor(0) })
        .withPropertyValues("relock.wait-time=2s")

    @BeforeEach
    fun reset() {
        Shapes.heldDuring.clear()
    }

    /** Spring calls a suspend function that returns a Flow and hands the caller its elements. */
    @Test
    fun `control - through Spring AOP without relock, a suspend function returning a Flow gives its elements`() =
        runner.test { context ->
            val items = runBlocking { context.getBean(Controls::class.java).suspendFlow().toList() }
            assertThat(items).containsExactly(1, 2, 3)
        }

    @Test
    fun `control - through Spring AOP without relock, a value class returned without suspending arrives boxed`() =
        runner.test { context ->
            val receipt: Receipt = runBlocking { context.getBean(Controls::class.java).valueResultNow("x") }
            assertThat(receipt.text).isEqualTo("now-x")
        }

    @Test
    fun `a locked suspend function returning a Flow stops startup`() =
        runner.withBean(SuspendFlowShape::class.java).test { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).hasMessageContaining("suspend function that returns a Flow")
        }

    @Test
    fun `a checked exception thrown before the first suspension reaches the caller as it is`() = runner.test { context ->
        assertThatThrownBy { runBlocking { context.getBean(Shapes::class.java).checkedNow("c-1") } }
            .isExactlyInstanceOf(IOException::class.java).hasMessage("disk")
        assertNoLock(context, "c-1")
    }

    @Test
    fun `a checked exception thrown after a suspension reaches the caller as it is`() = runner.test { context ->
        assertThatThrownBy { runBlocking { context.getBean(Shapes::class.java).checkedLater("c-2") } }
            .isExactlyInstanceOf(IOException::class.java).hasMessage("disk")
        assertNoLock(context, "c-2")
    }

    @Test
    fun `Unit and null results`() = runner.test { context ->
        val shapes = context.getBean(Shapes::class.java)
        assertThat(runBlocking { shapes.unit("u-1") }).isEqualTo(Unit)
        assertThat(runBlocking { shapes.nothing("u-2") }).isNull()
        assertNoLock(context, "u-1")
        assertNoLock(context, "u-2")
    }

    @Test
    fun `a value class result after a suspension`() = runner.test { context ->
        val receipt: Receipt = runBlocking { context.getBean(Shapes::class.java).valueResult("v-1") }
        assertThat(receipt.text).isEqualTo("r-v-1")
    }

    @Test
    fun `a value class result returned without suspending`() = runner.test { context ->
        val receipt: Receipt = runBlocking { context.getBean(Shapes::class.java).valueResultNow("v-2") }
        assertThat(receipt.text).isEqualTo("now-v-2")
    }

    @Test
    fun `a value class parameter`() = runner.test { context ->
        val shapes = context.getBean(Shapes::class.java)
        val echoed: OrderId = runBlocking { shapes.valueParam(OrderId(42)) }
        assertThat(echoed.value).isEqualTo(42)
        assertThat(Shapes.heldDuring["42"]).`as`("locked on the value class's value").isEqualTo(true)
    }

    @Test
    fun `default arguments and an extension function`() = runner.test { context ->
        val shapes = context.getBean(Shapes::class.java)
        assertThat(runBlocking { shapes.withDefault("d-1") }).isEqualTo("d-1/3")
        assertThat(Shapes.heldDuring["d-1"]).isEqualTo(true)
        assertThat(runBlocking { with(shapes) { "e-1".shout() } }).isEqualTo("E-1")
        assertThat(Shapes.heldDuring["e-1"]).isEqualTo(true)
    }

    private fun assertNoLock(context: ApplicationContext, id: String) {
        val keys = RelockContexts.redisKeys(context, LockNames.of("shapes", id))
        assertThat(redis.commands().exists(keys.lock())).`as`("lock key of $id").isZero()
        assertThat(context.getBean(RedisLockClient::class.java).heldLocks()).isEmpty()
    }

    open class Controls {
        @PassThrough
        open suspend fun suspendFlow(): Flow<Int> {
            delay(5)
            return flow { for (i in 1..3) emit(i) }
        }

        @PassThrough
        open suspend fun valueResultNow(id: String): Receipt = Receipt("now-$id")
    }

    open class Shapes(private val client: RedisLockClient) {

        companion object {
            val heldDuring = ConcurrentHashMap<String, Boolean>()
        }

        private fun held(id: String): Boolean =
            redis.commands().exists(client.redisKeys(LockNames.of("shapes", id)).lock()) == 1L

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun checkedNow(id: String): String {
            throw IOException("disk")
        }

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun checkedLater(id: String): String {
            delay(5)
            throw IOException("disk")
        }

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun unit(id: String) {
            delay(1)
        }

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun nothing(id: String): String? {
            delay(1)
            return null
        }

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun valueResult(id: String): Receipt {
            delay(1)
            return Receipt("r-$id")
        }

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun valueResultNow(id: String): Receipt = Receipt("now-$id")

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun valueParam(id: OrderId): OrderId {
            heldDuring[id.value.toString()] = held(id.value.toString())
            delay(1)
            return id
        }

        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun withDefault(id: String, times: Int = 3): String {
            heldDuring[id] = held(id)
            delay(1)
            return "$id/$times"
        }

        @DistributedLock(name = "shapes", key = "#p0")
        open suspend fun String.shout(): String {
            heldDuring[this] = held(this)
            delay(1)
            return uppercase()
        }
    }

    /** Refused at startup: the lock would end with the call, before the Flow is collected. */
    open class SuspendFlowShape {
        @DistributedLock(name = "shapes", key = "#id")
        open suspend fun suspendFlow(id: String): Flow<Int> {
            delay(5)
            return flow {
                for (i in 1..3) {
                    // never collected under the lock
                    emit(i)
                }
            }
        }
    }
}
