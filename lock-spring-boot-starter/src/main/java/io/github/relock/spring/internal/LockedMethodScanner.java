package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * Checks every bean with {@code @DistributedLock} methods once the singletons exist, in its own context and in
 * each child context as it is refreshed: that its locks can be built (a malformed key, a bad duration or an
 * unproxyable method stops startup instead of failing on the first call), and that relock advises it (one that
 * would run unlocked stops startup, naming it and why). With locking turned off ({@code relock.enabled=false}) it
 * logs one warning naming the methods that run unlocked instead. It also reports (or fails on) calls a bean class
 * makes to its own annotated methods, which skip the proxy ({@link SelfInvocationDetector}). Then warns about
 * {@code relock.locks.<name>} entries that no annotated method uses, which are most likely typos.
 */
public final class LockedMethodScanner implements SmartInitializingSingleton, ApplicationListener<ContextRefreshedEvent> {

    private static final Logger log = LoggerFactory.getLogger(LockedMethodScanner.class);

    private final ApplicationContext context;
    private final @Nullable LockDefinitionRegistry definitions;
    private final Collection<String> configuredNames;
    private final @Nullable LockedMethodProxyCheck postProcessed;
    private final SelfInvocationReaction selfInvocation;
    private final Set<Class<?>> readForSelfCalls = new HashSet<>();

    /**
     * @param definitions     where the locks are built; null when locking is turned off
     * @param configuredNames the names under {@code relock.locks}, to warn about the unused ones
     * @param postProcessed   the check that saw which beans of {@code context} were post-processed, if any
     * @param selfInvocation  what to do about a bean class that calls its own annotated methods
     */
    public LockedMethodScanner(ApplicationContext context, @Nullable LockDefinitionRegistry definitions,
            Collection<String> configuredNames, @Nullable LockedMethodProxyCheck postProcessed,
            SelfInvocationReaction selfInvocation) {
        this.context = context;
        this.definitions = definitions;
        this.configuredNames = configuredNames;
        this.postProcessed = postProcessed;
        this.selfInvocation = selfInvocation;
    }

    @Override
    public void afterSingletonsInstantiated() {
        scan(context, false);
        warnAboutUnusedNames();
    }

    /** A child context is checked here unless it has a scanner of its own. */
    @Override
    public void onApplicationEvent(ContextRefreshedEvent event) {
        ApplicationContext refreshed = event.getApplicationContext();
        if (refreshed != context && descendsFromOurs(refreshed)
                && refreshed.getBeanNamesForType(LockedMethodScanner.class, false, false).length == 0) {
            scan(refreshed, true);
        }
    }

    private boolean descendsFromOurs(ApplicationContext refreshed) {
        for (ApplicationContext parent = refreshed.getParent(); parent != null; parent = parent.getParent()) {
            if (parent == context) {
                return true;
            }
        }
        return false;
    }

    private void scan(ApplicationContext scanned, boolean child) {
        if (!(scanned.getAutowireCapableBeanFactory() instanceof ConfigurableListableBeanFactory beanFactory)) {
            return;
        }
        Set<String> names = new LinkedHashSet<>(List.of(beanFactory.getBeanDefinitionNames()));
        names.addAll(List.of(beanFactory.getSingletonNames())); // registerSingleton leaves no definition
        List<String> unadvised = new ArrayList<>();
        Set<String> actions = new LinkedHashSet<>();
        List<String> unlocked = new ArrayList<>();
        for (String beanName : names) {
            if (ScopedProxyUtils.isScopedTarget(beanName)) {
                continue; // checked through its scoped proxy's bean name
            }
            Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
            Collection<Method> methods = type == null ? List.of() : annotatedMethods(ClassUtils.getUserClass(type));
            if (methods.isEmpty()) {
                continue;
            }
            Class<?> userType = ClassUtils.getUserClass(type);
            if (definitions == null) {
                methods.forEach(method -> unlocked.add(userType.getSimpleName() + "." + method.getName()
                        + " (bean '" + beanName + "')"));
                continue;
            }
            for (Method method : methods) {
                LockDefinition definition = definitions.register(beanName, method, userType);
                if (definition != null) {
                    checkFallbackReachable(beanFactory, beanName, definition, userType);
                }
            }
            if (selfInvocation != SelfInvocationReaction.IGNORE && readForSelfCalls.add(userType)) {
                reportSelfCalls(beanName, userType, SelfInvocationDetector.find(userType, methods));
            }
            LockedBeanAdvice.Missing missing = LockedBeanAdvice.missing(beanFactory, beanName, userType, methods, child,
                    child ? null : postProcessed);
            if (missing != null) {
                unadvised.add("bean '" + beanName + "' (" + userType.getName() + "): " + missing.cause());
                actions.add(missing.action());
            }
        }
        if (!unlocked.isEmpty()) {
            log.warn("relock.enabled=false: these @DistributedLock methods run WITHOUT their locks: {}", unlocked);
        }
        if (!unadvised.isEmpty()) {
            throw new InvalidLockConfigurationException("@DistributedLock methods would run without their locks, "
                    + "because relock does not advise their bean" + (child ? " in child context '" + scanned.getId()
                    + "'" : "") + ":\n  " + String.join("\n  ", unadvised), String.join(" ", actions) + " To run "
                    + "@DistributedLock methods without their locks on purpose, set relock.enabled=false.");
        }
    }

    private static Collection<Method> annotatedMethods(Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
            return List.of();
        }
        return LockAnnotationLookup.annotatedMethods(type).keySet();
    }

    private void reportSelfCalls(String beanName, Class<?> type, List<SelfInvocationDetector.SelfCall> calls) {
        if (calls.isEmpty()) {
            return;
        }
        String what = "Do that call through the bean's proxy (inject the bean into itself, e.g. @Lazy @Autowired "
                + type.getSimpleName() + " self; then self.method(...)), or move the locked method to another bean.";
        if (selfInvocation == SelfInvocationReaction.FAIL) {
            String found = String.join("; ", calls.stream().map(call -> call.caller() + " calls "
                    + call.calleeSignature() + " on the same object, so " + call.calleeSignature()
                    + " runs without its lock there").toList());
            throw new InvalidLockConfigurationException("@DistributedLock on bean '" + beanName + "' (" + type.getName()
                    + "): " + found + " (the call does not go through the bean's proxy)", what
                    + " Or set relock.self-invocation=warn to start anyway with a warning.");
        }
        for (SelfInvocationDetector.SelfCall call : calls) {
            log.warn("{} calls {} on the same object (bean '{}'): the call does not go through the bean's proxy, so "
                    + "{} runs without its lock there. {} (relock.self-invocation=fail makes this a startup failure, "
                    + "=ignore silences it.)", call.caller(), call.calleeSignature(), beanName, call.calleeSignature(),
                    what);
        }
    }

    /** A fallback with a lock of its own runs through the proxy: an interface proxy must expose it. */
    private static void checkFallbackReachable(ConfigurableListableBeanFactory beanFactory, String beanName,
            LockDefinition definition, Class<?> type) {
        LockFallback fallback = definition.fallback();
        if (fallback == null || !fallback.locked()) {
            return;
        }
        Object bean = beanFactory.getSingleton(beanName);
        if (bean == null || !AopUtils.isAopProxy(bean)) {
            return; // not created yet (lazy, or not a singleton), or not advised at all: nothing to check here
        }
        try {
            AopUtils.selectInvocableMethod(fallback.method(), bean.getClass());
        }
        catch (IllegalStateException ex) {
            throw new LockedMethod(beanName, definition.method(), type).invalid("fallbackMethod '"
                    + fallback.method().getName() + "' has a @DistributedLock of its own, so it runs through the "
                    + "bean's proxy, but the bean's interface-based proxy does not expose it: it could only run "
                    + "without its lock", "Declare " + fallback.method().getName() + " on an interface the bean "
                    + "implements, or let Spring proxy the class (spring.aop.proxy-target-class=true, the default).",
                    ex);
        }
    }

    private void warnAboutUnusedNames() {
        if (definitions == null) {
            return;
        }
        Set<String> unused = new TreeSet<>(configuredNames);
        unused.removeAll(definitions.names());
        for (String name : unused) {
            log.warn("relock.locks.{} is configured, but no @DistributedLock method uses the lock name '{}'; is it a "
                    + "typo? Names in use: {}", name, name, new TreeSet<>(definitions.names()));
        }
    }
}
