package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.AbstractAdvisorAutoProxyCreator;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanFactory;

/**
 * Whether a bean with {@code @DistributedLock} methods gets relock's advice, and if not, why: read from the bean's
 * proxy when the bean exists, else from its context's post-processors (a lazy, prototype or scoped bean is proxied
 * when it is made, if an auto-proxy creator is there to do it).
 */
final class LockedBeanAdvice {

    /** Why a bean runs its annotated methods unlocked, and what to change. */
    record Missing(String cause, String action) {
    }

    private LockedBeanAdvice() {
    }

    /**
     * @param postProcessed which beans went through the post-processors of the context; null when unknown
     * @return null if every method is advised by a {@link DistributedLockAdvisor}
     */
    static @Nullable Missing missing(ConfigurableListableBeanFactory beanFactory, String beanName, Class<?> type,
            Collection<Method> methods, boolean childContext, @Nullable LockedMethodProxyCheck postProcessed) {
        if (BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, DistributedLockAdvisor.class, true,
                false).length == 0) {
            return new Missing("relock's aspect (a DistributedLockAdvisor bean) is neither in its context nor in a "
                    + "parent context", "Let relock's auto-configuration apply to the context that declares the bean "
                    + "or to a parent of it (do not exclude RelockAutoConfiguration).");
        }
        Object instance = beanFactory.containsSingleton(beanName) ? beanFactory.getSingleton(beanName) : null;
        if (instance == null || instance instanceof FactoryBean<?>) {
            return hasAutoProxyCreator(beanFactory) ? null : noAutoProxyCreator(childContext);
        }
        List<Method> unadvised = unadvised(instance, type, methods);
        if (unadvised.isEmpty()) {
            return null;
        }
        if (!beanFactory.containsBeanDefinition(beanName)) {
            return new Missing("it was registered as a ready-made object (registerSingleton), which Spring never "
                    + "post-processes, so no proxy was made for it", "Declare the bean (@Bean, @Component, "
                    + "registerBean) instead of registering a ready-made instance.");
        }
        if (!hasAutoProxyCreator(beanFactory)) {
            return noAutoProxyCreator(childContext);
        }
        if (postProcessed != null && !postProcessed.postProcessed(beanName)) {
            return new Missing("it was created before the post-processors were registered, so Spring's auto-proxy "
                    + "creator never saw it: most likely a BeanFactoryPostProcessor depends on it (a @Bean method that "
                    + "returns one takes it as a parameter, or is not static)", "Make the @Bean method that returns "
                    + "the BeanFactoryPostProcessor static, and let it look the bean up lazily (ObjectProvider) "
                    + "instead of taking it as a parameter.");
        }
        if (!matchedByAnAdvisor(beanFactory, type, unadvised)) {
            return new Missing("relock's pointcut does not match " + describe(unadvised), "Annotate the method that "
                    + "implements it in the bean's class.");
        }
        return new Missing("Spring's auto-proxy creator did not advise it: it was most likely created before the "
                + "auto-proxy creator, as a dependency of a BeanPostProcessor (Spring then logs that it 'is not "
                + "eligible for getting processed by all BeanPostProcessors')", "Let the BeanPostProcessor look "
                + "the bean up lazily (ObjectProvider, @Lazy) instead of taking it as a dependency.");
    }

    private static List<Method> unadvised(Object instance, Class<?> type, Collection<Method> methods) {
        List<Pointcut> pointcuts = new ArrayList<>();
        if (instance instanceof Advised advised) {
            for (Advisor advisor : advised.getAdvisors()) {
                if (advisor instanceof DistributedLockAdvisor lockAdvisor) {
                    pointcuts.add(lockAdvisor.getPointcut());
                }
            }
        }
        return unmatched(pointcuts, type, methods);
    }

    /** Whether the context's relock advisors would advise every one of {@code methods}, had they the chance. */
    private static boolean matchedByAnAdvisor(ConfigurableListableBeanFactory beanFactory, Class<?> type,
            Collection<Method> methods) {
        List<Pointcut> pointcuts = BeanFactoryUtils.beansOfTypeIncludingAncestors(beanFactory,
                DistributedLockAdvisor.class, true, false).values().stream().map(DistributedLockAdvisor::getPointcut)
                .toList();
        return unmatched(pointcuts, type, methods).isEmpty();
    }

    private static List<Method> unmatched(List<Pointcut> pointcuts, Class<?> type, Collection<Method> methods) {
        List<Method> unadvised = new ArrayList<>();
        for (Method method : methods) {
            if (pointcuts.stream().noneMatch(pointcut -> pointcut.getClassFilter().matches(type)
                    && pointcut.getMethodMatcher().matches(method, type))) {
                unadvised.add(method);
            }
        }
        return unadvised;
    }

    private static boolean hasAutoProxyCreator(ConfigurableListableBeanFactory beanFactory) {
        return beanFactory instanceof AbstractBeanFactory factory && factory.getBeanPostProcessors().stream()
                .anyMatch(AbstractAdvisorAutoProxyCreator.class::isInstance);
    }

    private static Missing noAutoProxyCreator(boolean childContext) {
        return childContext
                ? new Missing("it belongs to a child context that has no auto-proxy creator of its own (the parent "
                        + "context's does not proxy a child's beans)", "Add @EnableAspectJAutoProxy to a "
                        + "configuration class of the child context, or declare the bean in the parent context.")
                : new Missing("its context has no auto-proxy creator: spring.aop.auto=false turns Spring Boot's off "
                        + "(so does excluding AopAutoConfiguration)", "Remove spring.aop.auto=false, or add "
                        + "@EnableAspectJAutoProxy to a configuration class of the application.");
    }

    private static String describe(List<Method> methods) {
        return methods.stream().map(method -> method.getName() + "(" + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).reduce((a, b) -> a + ", " + b).orElse("") + ")").toList().toString();
    }
}
