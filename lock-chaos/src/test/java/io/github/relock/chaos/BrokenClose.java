package io.github.relock.chaos;

import java.lang.reflect.Field;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.internal.client.ClientRuntime;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.LeaseWatchdog;
import io.github.relock.core.internal.lock.ClientContext;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.wait.ReleaseSubscriptions;

/**
 * The control for the close checks: a {@code close()} that forgets its watchdog and its pub/sub
 * connection. Applied just before {@code close()}: the client's watchdog, its scheduler and shared context are
 * swapped for dummies (reflection on private fields, test code only), so {@code close()} stops the dummies while
 * the real watchdog thread keeps renewing what the client held, and its subscription stays.
 */
final class BrokenClose {

    private BrokenClose() {
    }

    static void leakOnClose(RedisLockClient client) {
        ClientRuntime runtime = (ClientRuntime) get(RedisLockClient.class, client, "runtime");
        ClientContext real = (ClientContext) get(ClientRuntime.class, runtime, "context");
        set(runtime, "watchdog", new LeaseWatchdog(new HoldRegistry(), real.commands(), real.watchdogLeaseMillis(),
                "chaos-dummy-watchdog", hold -> { }));
        // the real watchdog's rounds run on the client's scheduler: a dummy one is closed instead
        set(runtime, "scheduler", new ClientScheduler("chaos-dummy-scheduler"));
        ReleaseSubscriptions dummy = new ReleaseSubscriptions(real.commands().connectionFactory(), "chaos-dummy");
        set(runtime, "context", new ClientContext(real.clientId(), real.owners(), real.commands(), new HoldRegistry(),
                real.waiting(), real.turns(), dummy, real.watchdogLeaseMillis(), real.openCheck(), real.lossReporter(),
                real.async(), real.scheduler()));
    }

    private static Object get(Class<?> type, Object target, String name) {
        try {
            return field(type, name).get(target);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(type.getSimpleName() + " changed: cannot read " + name, ex);
        }
    }

    private static void set(ClientRuntime target, String name, Object value) {
        try {
            field(ClientRuntime.class, name).set(target, value);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("ClientRuntime changed: cannot replace " + name, ex);
        }
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
