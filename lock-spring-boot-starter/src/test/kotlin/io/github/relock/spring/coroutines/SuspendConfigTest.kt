package io.github.relock.spring.coroutines

import io.github.relock.core.LockNames
import io.github.relock.core.RedisLockClient
import io.github.relock.spring.DistributedLock
import io.github.relock.spring.InvalidLockConfigurationException
import io.github.relock.spring.LockFailureHandler
import io.github.relock.spring.LockNotAcquiredException
import io.github.relock.spring.RelockContexts
import io.github.relock.test.RedisServerExtension
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.TimeUnit

/** Fallbacks, failure handlers and key expressions of locked suspend functions: checked at startup, or right at the call. */
@Timeout(60)
class SuspendConfigTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = RelockContexts.on(redis).withPropertyValues("relock.wait-time=0s")

    @Test
    fun `a suspend fallback without the exception runs instead`() =
        runner.withBean(PlainFallback::class.java).test { context ->
            busy("fb", "f-1") {
                assertThat(runBlocking { context.getBean(PlainFallback::class.java).ship("f-1") }).isEqualTo("later f-1")
            }
        }

    /** A fallback whose result the method's callers cannot take is refused at startup, as for other methods. */
    @Test
    fun `a suspend fallback of another result type stops startup`() =
        runner.withBean(MistypedFallback::class.java).test { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).isInstanceOf(InvalidLockConfigurationException::class.java)
                .hasMessageContaining("cannot hold")
        }

    @Test
    fun `a regular fallback for a suspend function is refused with a message that names what to declare`() =
        runner.withBean(RegularFallback::class.java).test { context ->
            assertThat(context).hasFailed()
            val failure = context.startupFailure as InvalidLockConfigurationException
            val message = failure.message + " / action: " + failure.action
            println("startup message: $message")
            assertThat(message).contains("later")
            assertThat(message).`as`("a Kotlin user cannot declare a Continuation parameter").doesNotContain("Continuation, LockNotAcquiredException")
        }

    /** LockFailureHandler's contract: what it returns is returned by the method and must fit its return type. */
    @Test
    fun `a LockFailureHandler's value becomes the suspend function's result`() =
        runner.withBean(Plain::class.java)
            .withBean(LockFailureHandler::class.java, { LockFailureHandler { _, _, _ -> "busy" } })
            .test { context ->
                val seen = busy("plain", "h-1") { runCatching { runBlocking { context.getBean(Plain::class.java).ship("h-1") } } }
                assertThat(seen.getOrNull()).`as`("outcome %s", seen).isEqualTo("busy")
            }

    /** #p1 of a one-parameter suspend function is the Continuation: a key no caller meant, like #p3 of two parameters. */
    @Test
    fun `a key on the Continuation parameter stops startup`() =
        runner.withBean(ContinuationKey::class.java).test { context ->
            assertThat(context).hasFailed()
        }

    @Test
    fun `several keys on a suspend function stop startup with a clear message`() =
        runner.withBean(SeveralKeys::class.java).test { context ->
            assertThat(context).hasFailed()
            println("startup message: ${context.startupFailure?.message}")
            assertThat(context.startupFailure).isInstanceOf(InvalidLockConfigurationException::class.java)
                .hasMessageContaining("keys")
        }

    private fun <T> busy(name: String, id: String, body: () -> T): T {
        val other = RedisLockClient.builder(redis.newConnectionFactory()).build()
        try {
            val lock = other.getLock(LockNames.of(name, id))
            assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isTrue()
            try {
                return body()
            } finally {
                lock.unlock()
            }
        } finally {
            other.close()
        }
    }

    open class Plain {
        @DistributedLock(name = "plain", key = "#id")
        open suspend fun ship(id: String): String {
            delay(1)
            return id
        }
    }

    open class PlainFallback {
        @DistributedLock(name = "fb", key = "#id", fallbackMethod = "later")
        open suspend fun ship(id: String): String = id

        open suspend fun later(id: String): String {
            delay(1)
            return "later $id"
        }
    }

    open class MistypedFallback {
        @DistributedLock(name = "fb", key = "#id", fallbackMethod = "later")
        open suspend fun ship(id: String): String = id

        open suspend fun later(id: String): Int {
            delay(1)
            return 42
        }
    }

    open class RegularFallback {
        @DistributedLock(name = "fb", key = "#id", fallbackMethod = "later")
        open suspend fun ship(id: String): String = id

        open fun later(id: String): String = "later $id"
    }

    open class ContinuationKey {
        @DistributedLock(name = "ck", key = "#p1")
        open suspend fun ship(id: String): String {
            delay(1)
            return id
        }
    }

    open class SeveralKeys {
        @DistributedLock(name = "several", keys = ["#a", "#b"])
        open suspend fun ship(a: String, b: String): String = a + b
    }
}
