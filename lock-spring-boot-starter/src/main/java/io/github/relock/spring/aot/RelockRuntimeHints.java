package io.github.relock.spring.aot;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.spring.autoconfigure.RelockProperties;
import io.github.relock.spring.internal.LockKeyRootObject;

/**
 * What relock reads reflectively or from the class path at run time, for an AOT-processed application
 * (and so for a GraalVM native image built from it). Registered in {@code META-INF/spring/aot.factories}.
 *
 * <ul>
 * <li>the Lua scripts of {@code lock-core}, read as class path resources when the first client starts;</li>
 * <li>{@link LockKeyRootObject}, which key expressions reach through {@code #root.method},
 * {@code #root.args}, ...;</li>
 * <li>{@link RelockProperties}, bound from {@code relock.*};</li>
 * <li>{@link DistributedLock}, whose attributes are read when the aspect first meets a method (the annotated
 * methods themselves, their fallbacks and their key arguments are covered by the annotation's
 * {@code @Reflective} processor);</li>
 * <li>{@link RelockFailureAnalyzer}, created from {@code META-INF/spring.factories}.</li>
 * </ul>
 */
public final class RelockRuntimeHints implements RuntimeHintsRegistrar {

    /** Where {@code lock-core} keeps its scripts (see {@code io.github.relock.core.internal.command.LuaScript}). */
    public static final String LUA_SCRIPTS = "io/github/relock/core/*.lua";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(LUA_SCRIPTS);
        hints.reflection().registerType(LockKeyRootObject.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(DistributedLock.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(RelockFailureAnalyzer.class, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
        BindableRuntimeHintsRegistrar.forTypes(RelockProperties.class).registerHints(hints, classLoader);
    }
}
