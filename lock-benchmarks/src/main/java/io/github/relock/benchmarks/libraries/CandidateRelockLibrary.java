package io.github.relock.benchmarks.libraries;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * relock from another build of lock-core (its {@code target/classes} or jar), loaded beside the current
 * one in its own class loader, so that a proposed change and the code it replaces are measured in the
 * same run, interleaved, on the same server. Everything but {@code io.github.relock.core} (Spring Data
 * Redis, Lettuce) is shared with the rest of the harness.
 *
 * <p>The blocking hot path needs no reflection: the handles are {@link java.util.concurrent.locks.Lock}s. The
 * asynchronous calls (W7, S2) go through {@link Method#invoke}, the same for every call.
 */
public final class CandidateRelockLibrary implements LockLibrary {

    private static final String CORE = "io.github.relock.core.";
    private static final String CORE_RESOURCES = "io/github/relock/core/";

    private final Path location;
    private final ClassLoader loader;
    private final boolean lockKinds;
    private final boolean asyncLocks;

    public CandidateRelockLibrary(Path location) {
        this.location = location;
        try {
            this.loader = new CoreFirstClassLoader(location.toUri().toURL(), getClass().getClassLoader());
        }
        catch (MalformedURLException ex) {
            throw new IllegalArgumentException("not a usable path: " + location, ex);
        }
        this.lockKinds = lockKinds(loader);
        this.asyncLocks = asyncLocks(loader);
    }

    @Override
    public String id() {
        return "relock-candidate";
    }

    @Override
    public String description() {
        return "relock with lock-core from " + location + " (same adapter as relock)";
    }

    @Override
    public boolean hasLockKinds() {
        return lockKinds;
    }

    @Override
    public String noLockKindsReason() {
        return "the candidate lock-core at " + location + " has no getReadWriteLock and getFairLock";
    }

    @Override
    public boolean hasAsyncLocks() {
        return asyncLocks;
    }

    @Override
    public LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout) {
        LettuceConnectionFactory factory = RelockLibrary.startedFactory(target);
        try {
            Class<?> clientType = loader.loadClass(CORE + "RedisLockClient");
            Object builder = clientType.getMethod("builder", RedisConnectionFactory.class).invoke(null, factory);
            Class<?> builderType = builder.getClass();
            builderType.getMethod("keyPrefix", String.class).invoke(builder, "bench:candidate:");
            if (watchdogTimeout != null) {
                builderType.getMethod("watchdogTimeout", Duration.class).invoke(builder, watchdogTimeout);
            }
            Object client = builderType.getMethod("build").invoke(builder);
            Method getLock = clientType.getMethod("getLock", String.class);
            Method close = clientType.getMethod("close");
            return new LockClient() {
                @Override
                public BenchLock lock(String name) {
                    Lock lock = (Lock) invoke(getLock, client, name);
                    return BenchLock.of(lock);
                }

                @Override
                public BenchLock readLock(String name) {
                    return side(name, "readLock");
                }

                @Override
                public BenchLock writeLock(String name) {
                    return side(name, "writeLock");
                }

                @Override
                public BenchLock fairLock(String name) {
                    return BenchLock.of((Lock) invoke(coreMethod("RedisLockClient", "getFairLock", String.class), client,
                            name));
                }

                @Override
                public AsyncLock asyncLock(String name) {
                    Object lock = invoke(getLock, client, name);
                    Object owner = invoke(coreMethod("RedisLockClient", "newOwner"), client);
                    Method tryLock = coreMethod("ReentrantDistributedLock", "tryLockAsync", Duration.class, Duration.class,
                            ownerType());
                    Method unlock = coreMethod("ReentrantDistributedLock", "unlockAsync", ownerType());
                    return new AsyncLock() {
                        @Override
                        @SuppressWarnings("unchecked")
                        public CompletionStage<Boolean> tryLock(Duration wait, Duration lease) {
                            return (CompletionStage<Boolean>) invoke(tryLock, lock, wait, lease, owner);
                        }

                        @Override
                        @SuppressWarnings("unchecked")
                        public CompletionStage<Void> unlock() {
                            return (CompletionStage<Void>) invoke(unlock, lock, owner);
                        }
                    };
                }

                private BenchLock side(String name, String which) {
                    Object readWrite = invoke(coreMethod("RedisLockClient", "getReadWriteLock", String.class), client, name);
                    return BenchLock.of((Lock) invoke(coreMethod("ReadWriteDistributedLock", which), readWrite));
                }

                @Override
                public void close() {
                    invoke(close, client);
                    factory.destroy();
                }
            };
        }
        catch (ReflectiveOperationException ex) {
            factory.destroy();
            throw new IllegalStateException("the candidate lock-core at " + location + " has no usable RedisLockClient", ex);
        }
    }

    /** Whether this build of lock-core has read-write and fair locks; an older one still runs W1-W4. */
    private static boolean lockKinds(ClassLoader loader) {
        try {
            Class<?> clientType = loader.loadClass(CORE + "RedisLockClient");
            clientType.getMethod("getReadWriteLock", String.class);
            clientType.getMethod("getFairLock", String.class);
            return true;
        }
        catch (ReflectiveOperationException | LinkageError ex) {
            return false;
        }
    }

    /** Whether this build of lock-core takes locks for an explicit owner without blocking (W7, S2, threads per client). */
    private static boolean asyncLocks(ClassLoader loader) {
        try {
            Class<?> owner = loader.loadClass(CORE + "LockOwner");
            loader.loadClass(CORE + "RedisLockClient").getMethod("newOwner");
            Class<?> lock = loader.loadClass(CORE + "ReentrantDistributedLock");
            lock.getMethod("tryLockAsync", Duration.class, Duration.class, owner);
            lock.getMethod("unlockAsync", owner);
            return true;
        }
        catch (ReflectiveOperationException | LinkageError ex) {
            return false;
        }
    }

    private Class<?> ownerType() {
        try {
            return loader.loadClass(CORE + "LockOwner");
        }
        catch (ClassNotFoundException ex) {
            throw new UnsupportedOperationException("the candidate lock-core at " + location + " has no LockOwner", ex);
        }
    }

    /** A method of the candidate's public API, looked up through its interfaces: the implementations are not public. */
    private Method coreMethod(String type, String name, Class<?>... parameters) {
        try {
            return loader.loadClass(CORE + type).getMethod(name, parameters);
        }
        catch (ReflectiveOperationException ex) {
            throw new UnsupportedOperationException(noLockKindsReason(), ex);
        }
    }

    private static Object invoke(Method method, Object target, Object... args) {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            if (ex.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(ex.getCause());
        }
        catch (IllegalAccessException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Finds relock-core classes and scripts in the candidate first, everything else in the parent. */
    private static final class CoreFirstClassLoader extends URLClassLoader {

        CoreFirstClassLoader(URL location, ClassLoader parent) {
            super(new URL[] {location}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(CORE)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> type = findLoadedClass(name);
                if (type == null) {
                    type = findClass(name); // never the parent's copy: that is the code being compared against
                }
                if (resolve) {
                    resolveClass(type);
                }
                return type;
            }
        }

        @Override
        public @Nullable URL getResource(String name) {
            if (name.startsWith(CORE_RESOURCES)) {
                return findResource(name);
            }
            return super.getResource(name);
        }
    }
}
