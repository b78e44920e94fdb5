package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.FilteredClassLoader;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockNames;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/** Reactor is optional: an application without it starts, and its locked methods work as before. */
@Timeout(60)
class WithoutReactorTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void anApplicationThatCannotSeeReactorLocksAsBefore() {
        RelockContexts.on(redis).withBean(Plain.class)
                .withClassLoader(new FilteredClassLoader("reactor.core", "org.reactivestreams"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    String key = RelockContexts.redisKeys(context, LockNames.of("plain", "1")).lock();
                    assertThat(context.getBean(Plain.class).run("1", () -> redis.commands().exists(key)))
                            .as("held inside").isOne();
                    assertThat(redis.commands().exists(key)).isZero();
                });
    }

    /**
     * Every class of the starter but the reactive ones (and {@code CurrentLock}'s Reactor part) loads, links and
     * initialises in a class loader that has no Reactor at all: nothing on the non-reactive path refers to it.
     */
    @Test
    void noStarterClassButTheReactiveOnesNeedsReactor() throws Exception {
        Path classes = Path.of(DistributedLockInterceptor.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        List<URL> withoutReactor = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("reactor-core") && !entry.contains("reactive-streams")) {
                withoutReactor.add(Path.of(entry).toUri().toURL());
            }
        }
        List<String> names;
        try (Stream<Path> files = Files.walk(classes)) {
            names = files.map(classes::relativize).map(Path::toString).filter(name -> name.endsWith(".class"))
                    .map(name -> name.substring(0, name.length() - ".class".length()).replace(File.separatorChar, '.'))
                    .filter(name -> name.startsWith("io.github.relock.spring")).toList();
        }
        try (URLClassLoader isolated = new URLClassLoader(withoutReactor.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> isolated.loadClass("reactor.core.publisher.Mono"))
                    .isInstanceOf(ClassNotFoundException.class);
            List<String> linked = new ArrayList<>();
            for (String name : names) {
                if (!name.contains(".internal.Reactive") && !name.endsWith("$FromReactorContext")) {
                    Class.forName(name, true, isolated);
                    linked.add(name);
                }
            }
            assertThat(linked).contains(DistributedLockInterceptor.class.getName(),
                    LockDefinitionFactory.class.getName(), LockedMethodChecks.class.getName());
            assertThat(holdingIn(isolated, Plain.class.getMethod("run", String.class, LongSupplier.class)))
                    .as("the return type check runs without Reactor").isEqualTo("SYNCHRONOUS");
            assertThat(linked).contains(CurrentLock.class.getName());
            // a call site links this one method (reflection would resolve every public signature, mono()'s too)
            MethodHandle get = MethodHandles.publicLookup().findStatic(Class.forName(CurrentLock.class.getName(),
                    true, isolated), "get", MethodType.methodType(Class.forName(HeldLock.class.getName(), false,
                    isolated)));
            assertThatThrownBy(() -> get.invoke()).as("CurrentLock.get() works without Reactor")
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside any @DistributedLock call");
        }
    }

    /** {@link LockedMethodChecks#holding} of {@code method}, run by the isolated loader's copy of the class. */
    private static String holdingIn(ClassLoader isolated, Method method) throws Exception {
        Class<?> where = Class.forName(LockedMethod.class.getName(), true, isolated);
        Constructor<?> create = where.getDeclaredConstructor(String.class, Method.class, Class.class);
        create.setAccessible(true);
        Method holding = Class.forName(LockedMethodChecks.class.getName(), true, isolated)
                .getDeclaredMethod("holding", where);
        holding.setAccessible(true);
        return holding.invoke(null, create.newInstance("plain", method, method.getDeclaringClass())).toString();
    }

    public static class Plain {

        @DistributedLock(name = "plain", key = "#id")
        public long run(String id, LongSupplier inside) {
            return inside.getAsLong();
        }
    }
}
