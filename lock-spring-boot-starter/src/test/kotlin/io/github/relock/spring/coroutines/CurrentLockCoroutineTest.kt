package io.github.relock.spring.coroutines

import io.github.relock.core.HeldLock
import io.github.relock.spring.CurrentLock
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.reactive.awaitSingle
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Lazy

/**
 * `CurrentLock.mono().awaitSingle()` in Kotlin `suspend` functions and `Flow`s, on a real redis-server: the hold of
 * the running call, across suspension points and dispatchers, and the same hold in a nested call on the same key.
 */
@Timeout(60)
class CurrentLockCoroutineTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis)
        .withBean(Dispatch::class.java)
        .withPropertyValues("relock.wait-time=5s")

    @Test
    fun `a suspend function reads its hold after suspending and on another dispatcher`() = runner.test { context ->
        val seen = runBlocking { context.getBean(Dispatch::class.java).send("d-1") }
        assertThat(seen.map { it.name() }).containsExactly("dispatch:d-1", "dispatch:d-1")
        assertThat(seen[0].fencingToken()).isPositive().isEqualTo(seen[1].fencingToken())
    }

    @Test
    fun `a nested suspend call on the same key sees the same hold and token`() = runner.test { context ->
        val (outer, inner) = runBlocking { context.getBean(Dispatch::class.java).sendNested("d-2") }
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken())
        assertThat(outer.holdCount()).isOne()
        assertThat(inner.holdCount()).isEqualTo(2)
    }

    @Test
    fun `a Flow reads its hold while it is collected`() = runner.test { context ->
        val tokens = runBlocking { context.getBean(Dispatch::class.java).stream("d-3").toList() }
        assertThat(tokens).hasSize(3).allSatisfy { assertThat(it).isPositive().isEqualTo(tokens[0]) }
    }

    @Test
    fun `outside a locked call it fails`() {
        assertThatThrownBy { runBlocking { CurrentLock.mono().awaitSingle() } }
            .isInstanceOf(IllegalStateException::class.java)
            .hasMessageContaining("outside any reactive @DistributedLock call")
    }

    /** `run` returns the runner, which JUnit would take for a test's result and skip the test. */
    private fun ApplicationContextRunner.test(body: (AssertableApplicationContext) -> Unit) {
        run(body)
    }

    open class Dispatch {

        @Autowired
        @Lazy
        lateinit var self: Dispatch

        @DistributedLock(name = "dispatch", key = "#id")
        open suspend fun send(id: String): List<HeldLock> {
            val before = CurrentLock.mono().awaitSingle()
            delay(20)
            val after = withContext(Dispatchers.Default) { CurrentLock.mono().awaitSingle() }
            return listOf(before, after)
        }

        @DistributedLock(name = "dispatch", key = "#id")
        open suspend fun sendNested(id: String): Pair<HeldLock, HeldLock> {
            val outer = CurrentLock.mono().awaitSingle()
            return outer to self.inner(id)
        }

        @DistributedLock(name = "dispatch", key = "#id")
        open suspend fun inner(id: String): HeldLock = CurrentLock.mono().awaitSingle()

        @DistributedLock(name = "dispatch", key = "#id")
        open fun stream(id: String): Flow<Long> = flow {
            repeat(3) {
                delay(5)
                emit(CurrentLock.mono().awaitSingle().fencingToken())
            }
        }
    }
}
