package io.github.relock.spring.breakkt

import org.springframework.boot.test.context.assertj.AssertableApplicationContext
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
