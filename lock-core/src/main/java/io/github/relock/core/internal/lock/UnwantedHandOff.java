package io.github.relock.core.internal.lock;

import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;

/**
 * What a waiter does with a lock a local releaser handed to it just as it stopped wanting it: an interrupt
 * passes it on (to the next local waiter or to everyone), a closing client gives it back. Either way no
 * hold is left behind, and what went wrong rides along with the exception the waiter reports.
 */
public final class UnwantedHandOff implements AcquireLoop.Unwanted {

    private final ReentrantDistributedLock lock;
    private final LockKeys keys;
    private final ClientContext context;
    private final Holder holder;

    public UnwantedHandOff(ReentrantDistributedLock lock, LockKeys keys, ClientContext context, Holder holder) {
        this.lock = lock;
        this.keys = keys;
        this.context = context;
        this.holder = holder;
    }

    @Override
    public void interrupted(InterruptedException reported) {
        try {
            lock.unlock();
        }
        catch (RuntimeException ex) {
            reported.addSuppressed(ex);
        }
    }

    @Override
    public void closing(RuntimeException reported) {
        Hold granted = context.holds().get(keys, holder.id());
        if (granted != null && context.holds().remove(granted)) {
            try {
                new Releases(keys, context).release(granted, 1); // unlock() itself refuses on a closed client
            }
            catch (RuntimeException ex) {
                reported.addSuppressed(ex);
            }
        }
    }
}
