package io.github.relock.chaos;

import java.lang.reflect.Field;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.internal.ClientContext;
import io.github.relock.core.internal.HoldRegistry;
import io.github.relock.core.internal.LeaseWatchdog;
import io.github.relock.core.internal.ReleaseSubscriptions;

/**
 * The control for the close checks: a {@code close()} that forgets its watchdog and its pub/sub
 * connection. Applied just before {@code close()}: the client's watchdog and shared context are swapped
 * for dummies (reflection on private fields, test code only), so {@code close()} stops the dummies while
 * the real watchdog thread keeps renewing what the client held, and its subscription stays.
 */
final class BrokenClose {

    private BrokenClose() {
    }

    static void leakOnClose(RedisLockClient client) {
        ClientContext real = (ClientContext) get(client, "context");
        set(client, "watchdog", new LeaseWatchdog(new HoldRegistry(), real.commands(), real.watchdogLeaseMillis(),
                "chaos-dummy-watchdog", hold -> { }));
        ReleaseSubscriptions dummy = new ReleaseSubscriptions(real.commands().connectionFactory(), "chaos-dummy");
        set(client, "context", new ClientContext(real.clientId(), real.owners(), real.commands(), new HoldRegistry(),
                dummy, real.watchdogLeaseMillis(), real.openCheck()));
    }

    private static Object get(Object target, String name) {
        try {
            return field(name).get(target);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("RedisLockClient changed: cannot read " + name, ex);
        }
    }

    private static void set(Object target, String name, Object value) {
        try {
            field(name).set(target, value);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("RedisLockClient changed: cannot replace " + name, ex);
        }
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field field = RedisLockClient.class.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
