package io.github.relock.core.internal.lock;

import java.util.function.Consumer;

import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.OwnerIds;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.wait.OwnerTurns;
import io.github.relock.core.internal.wait.ReleaseSubscriptions;
import io.github.relock.core.internal.wait.WaitingOwners;

/**
 * What every lock handle of one client shares.
 *
 * @param clientId            the random id that starts every owner id of this client
 * @param owners              the owner ids of this client's threads
 * @param commands            the Redis calls
 * @param holds               this client's holds, also the watchdog's work list
 * @param waiting             this client's waiting threads, per lock and owner
 * @param turns               one call at a time per lock and owner
 * @param subscriptions       release notifications for waiters
 * @param watchdogLeaseMillis the lease of holds the watchdog renews
 * @param openCheck           throws if the client is closed
 * @param lossReporter        tells the lost-lock listeners of a hold found lost
 * @param scheduler           the client's timer thread: runs the waits' timers
 * @param releases            gives back the holds
 * @param releaseScripts      sends the release scripts until their outcome is known
 */
public record ClientContext(String clientId, OwnerIds owners, LockCommands commands, HoldRegistry holds,
        WaitingOwners waiting, OwnerTurns turns, ReleaseSubscriptions subscriptions, long watchdogLeaseMillis, Runnable openCheck,
        Consumer<Hold> lossReporter, ClientScheduler scheduler, Releases releases,
        ReleaseScripts releaseScripts) {
}
