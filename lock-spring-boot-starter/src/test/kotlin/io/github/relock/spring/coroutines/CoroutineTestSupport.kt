package io.github.relock.spring.coroutines

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import java.util.concurrent.atomic.AtomicInteger
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/** Runs a test in a context and returns nothing, which JUnit needs of a test method. */
internal fun ApplicationContextRunner.test(body: (AssertableApplicationContext) -> Unit) {
    run(body)
}

/** Marks a method for [passThroughAdvisor]: advice that only proceeds, as `@Transactional` or a tracer would. */
@Target(AnnotationTarget.FUNCTION)
@Retention(AnnotationRetention.RUNTIME)
annotation class PassThrough

/** Advice on [PassThrough] methods that only proceeds; its order places it inside or outside relock's. */
internal fun passThroughAdvisor(order: Int): org.springframework.aop.Advisor {
    val advisor = org.springframework.aop.support.DefaultPointcutAdvisor(
        org.springframework.aop.support.annotation.AnnotationMatchingPointcut.forMethodAnnotation(PassThrough::class.java),
        org.aopalliance.intercept.MethodInterceptor { it.proceed() })
    advisor.order = order
    return advisor
}

/** Counted in [inside] until it ends: waits to be cancelled, then cleans up for 400 ms where no cancel reaches. */
internal suspend fun slowToStop(inside: AtomicInteger, entered: CompletableDeferred<Unit>) {
    inside.incrementAndGet()
    try {
        entered.complete(Unit)
        delay(60_000)
    } catch (ex: CancellationException) {
        withContext(NonCancellable) { delay(400) }
        throw ex
    } finally {
        inside.decrementAndGet()
    }
}
