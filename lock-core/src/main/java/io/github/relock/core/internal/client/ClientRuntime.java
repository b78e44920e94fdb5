package io.github.relock.core.internal.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostListener;
import io.github.relock.core.LockRedisKeys;
import io.github.relock.core.MultiLock;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClientSettings;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.RedisDriverCheck;
import io.github.relock.core.internal.command.ReplicaAckTimeoutCheck;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.LeaseWatchdog;
import io.github.relock.core.internal.hold.OwnerIds;
import io.github.relock.core.internal.kind.FairKind;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.ReadWriteSide;
import io.github.relock.core.internal.lock.Acquisitions;
import io.github.relock.core.internal.lock.AsyncCalls;
import io.github.relock.core.internal.lock.HandOff;
import io.github.relock.core.internal.lock.LockWaits;
import io.github.relock.core.internal.lock.ReleaseScripts;
import io.github.relock.core.internal.lock.Releases;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.settings.SettingRules;
import io.github.relock.core.internal.wait.OwnerTurns;
import io.github.relock.core.internal.wait.ReleaseSubscriptions;
import io.github.relock.core.internal.wait.WaitingOwners;

/**
 * What one client's locks share, put together: the Redis commands, the holds, the waiters' subscriptions,
 * the watchdog and the lost-lock listeners, each service built once here and given the others it uses. The
 * public {@code RedisLockClient} is a thin face over this.
 */
public final class ClientRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClientRuntime.class);

    private final String keyPrefix;
    /** The random id that starts every owner id of this client. */
    private final String clientId;
    /** The owner ids of this client's threads. */
    private final OwnerIds owners;
    private final LockCommands commands;
    /** This client's holds, also the watchdog's work list. */
    private final HoldRegistry holds;
    /** Release notifications for waiters. */
    private final ReleaseSubscriptions subscriptions;
    private final Acquisitions acquisitions;
    private final LockWaits waits;
    private final Releases releases;
    private final AsyncCalls async;
    /** The lease of holds the watchdog renews. */
    private final long watchdogLeaseMillis;
    /** Throws if the client is closed. */
    private final Runnable openCheck = this::checkOpen;
    /** Tells the lost-lock listeners of a hold found lost. */
    private final Consumer<Hold> lossReporter = this::reportLostLater;
    private final LeaseWatchdog watchdog;
    /** The client's timer thread: sends again, gives connections back. */
    private final ClientScheduler scheduler;
    /** Where the watchdog's losses are told: a listener that blocks must not stop the renewal of other holds. */
    private final Executor told;
    /**
     * The client's own second thread, started on demand: where listeners are told when the user gave no executor,
     * or gave one that ran the event on the thread that handed it over (a direct executor), and where the pub/sub
     * connection opens.
     */
    private final EventThread events;
    private final List<LockLostListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong ownerSequence = new AtomicLong();
    /** Set by the one close() that does the closing, as it starts. */
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Counted down when that close() is done, for a close() that came meanwhile to wait on. */
    private final CountDownLatch closeDone = new CountDownLatch(1);
    /** How long a concurrent close() waits for the one under way: more than that one's own bounded waits. */
    private static final long CONCURRENT_CLOSE_WAIT_SECONDS = 10;
    /** Ids of the clients whose next close() stops nothing; see {@link #leakOnNextClose(String)}. */
    private static final Set<String> leakingCloses = ConcurrentHashMap.newKeySet();

    public ClientRuntime(RedisConnectionFactory factory, RedisLockClientSettings settings,
            List<LockLostListener> listeners) {
        this(factory, settings, listeners, null);
    }

    /** @param lockLostExecutor where lost-lock listeners are called; null: one thread of the client's own */
    public ClientRuntime(RedisConnectionFactory factory, RedisLockClientSettings settings,
            List<LockLostListener> listeners, @Nullable Executor lockLostExecutor) {
        RedisDriverCheck.requireLettuce(factory); // first: a Jedis client would hang its first waiter
        ReplicaAckTimeoutCheck.check(factory, settings.minReplicas(), settings.replicaAckTimeout());
        this.keyPrefix = settings.keyPrefix();
        // random per instance even with a chosen name: a replayed command is recognised by its owner id, so
        // two live instances (or a restart while the old one's leases run) must never share one
        this.clientId = settings.clientName() != null ? settings.clientName() + "-" + instanceSuffix()
                : UUID.randomUUID().toString();
        this.owners = new OwnerIds(clientId);
        this.scheduler = new ClientScheduler("relock-scheduler-" + clientId);
        this.events = new EventThread("relock-events-" + clientId);
        this.commands = new LockCommands(factory, settings.minReplicas(),
                settings.replicaAckTimeout().toMillis(), settings.fencingTokenRetention().toMillis(), scheduler,
                events::execute);
        this.holds = new HoldRegistry();
        this.subscriptions = new ReleaseSubscriptions(factory, keyPrefix + "__relock_client__:" + clientId,
                clientId, scheduler, events::execute);
        this.watchdogLeaseMillis = settings.watchdogTimeout().toMillis();
        OwnerTurns turns = new OwnerTurns();
        ReleaseScripts releaseScripts = new ReleaseScripts(commands, scheduler);
        this.releases = new Releases(holds, turns, lossReporter,
                new HandOff(subscriptions, holds, releaseScripts::transfer), releaseScripts);
        this.watchdog = new LeaseWatchdog(holds, commands, watchdogLeaseMillis, scheduler, lossReporter);
        this.acquisitions = new Acquisitions(commands, holds, new WaitingOwners(), turns, lossReporter, openCheck,
                watchdogLeaseMillis, watchdog::renewEarly);
        this.waits = new LockWaits(acquisitions, releases, subscriptions, scheduler, openCheck, commands);
        this.async = new AsyncCalls(owners, holds, waits, releases, openCheck, watchdogLeaseMillis, completions());
        this.listeners.addAll(listeners);
        this.told = lockLostExecutor != null ? lockLostExecutor : events::execute;
    }

    /** 48 random bits, in hex. */
    private static String instanceSuffix() {
        return Long.toHexString(UUID.randomUUID().getLeastSignificantBits() & 0xFFFF_FFFF_FFFFL);
    }

    public String clientId() {
        return clientId;
    }

    /** A handle on one lock, owned by the calling thread ({@code ownerId} null) or by that owner. */
    public ReentrantDistributedLock lock(String name, @Nullable String ownerId) {
        return exclusive(name, ownerId);
    }

    private RedisReentrantLock exclusive(String name, @Nullable String ownerId) {
        checkOpen();
        checkOwner(ownerId);
        return handle(LockKeys.of(keyPrefix, SettingRules.checkLockName(name)), ownerId);
    }

    /** A handle on the lock of {@code keys}, owned by the calling thread ({@code ownerId} null) or by that owner. */
    private RedisReentrantLock handle(LockKeys keys, @Nullable String ownerId) {
        return new RedisReentrantLock(keys, ownerId, owners, commands, holds, acquisitions, waits, releases, async,
                openCheck, lossReporter, watchdogLeaseMillis);
    }

    /** A fair lock, owned by the calling thread ({@code ownerId} null) or by that owner. */
    public ReentrantDistributedLock fairLock(String name, @Nullable String ownerId) {
        checkKind("Fair", name, ownerId);
        return handle(FairKind.keys(keyPrefix, SettingRules.checkLockName(name)), ownerId);
    }

    /** Both sides of a read-write lock, owned by the calling thread ({@code ownerId} null) or by that owner. */
    public ReadWriteDistributedLock readWriteLock(String name, @Nullable String ownerId) {
        checkKind("Read-write", name, ownerId);
        LockKeys[] sides = ReadWriteSide.keys(keyPrefix, SettingRules.checkLockName(name));
        return new RedisReadWriteLock(name, handle(sides[0], ownerId), handle(sides[1], ownerId));
    }

    /** The checks before a handle on a lock of a kind other than exclusive; none of them waits for replicas yet. */
    private void checkKind(String kind, String name, @Nullable String ownerId) {
        checkOpen();
        checkOwner(ownerId);
        if (commands.awaitsReplicas()) {
            throw new UnsupportedOperationException(kind + " locks do not wait for replicas yet: use a client "
                    + "without minReplicas for lock '" + name + "', or an exclusive lock");
        }
    }

    private void checkOwner(@Nullable String ownerId) {
        owners.checkMine(ownerId);
    }

    /** Several locks, sorted by name and without duplicates: the fixed order that keeps callers from deadlocking. */
    public MultiLock multiLock(Collection<String> names, @Nullable String ownerId) {
        Objects.requireNonNull(names, "names must not be null");
        List<RedisReentrantLock> locks = new ArrayList<>();
        for (String name : new TreeSet<>(names)) {
            locks.add(exclusive(name, ownerId));
        }
        return new RedisMultiLock(locks);
    }

    public LockRedisKeys redisKeys(String name) {
        LockKeys keys = LockKeys.of(keyPrefix, SettingRules.checkLockName(name));
        return new LockRedisKeys(keys.lock(), keys.fence(), keys.channel());
    }

    public String newOwnerId() {
        return clientId + ":owner-" + ownerSequence.incrementAndGet();
    }

    public List<HeldLock> heldLocks() {
        List<HeldLock> held = new ArrayList<>();
        for (Hold hold : holds.held()) {
            if (!hold.lost() && !hold.leaseEnded()) {
                held.add(hold.heldLock());
            }
        }
        return held;
    }

    public void addLockLostListener(LockLostListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    public void removeLockLostListener(LockLostListener listener) {
        listeners.remove(listener);
    }

    public boolean isClosed() {
        return closed.get();
    }

    /**
     * For fault testing only (lock-chaos's control for its close checks): the next {@code close()} of the client
     * with this id marks it closed and stops nothing, so its watchdog keeps renewing what it held, its threads stay
     * and its subscriptions stay. Never call it from application code.
     */
    public static void leakOnNextClose(String clientId) {
        leakingCloses.add(clientId);
    }

    /**
     * Stops renewal (returning once the watchdog thread has ended) and the subscriptions; leases then run out.
     * A close() that comes while another runs returns once that one is done (a bounded wait), so that no
     * caller sees close() return while renewal still runs; called from one of this client's own threads (a
     * lost-lock listener, a future's callback) it returns at once, since those threads end only after it.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            awaitClosed();
            return;
        }
        if (leakingCloses.remove(clientId)) {
            closeDone.countDown(); // the fault-testing close that leaks: see leakOnNextClose
            return;
        }
        try {
            watchdog.close();
            subscriptions.close();
            commands.close();
            events.closeNow(); // a listener asleep is woken, as it was when listeners ran on the watchdog thread
            scheduler.close();
            holds.clear();
        }
        finally {
            closeDone.countDown();
        }
    }

    private void awaitClosed() {
        if (watchdog.runsOnCurrentThread() || scheduler.runsOnCurrentThread()
                || events.runsOnCurrentThread()) {
            return;
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CONCURRENT_CLOSE_WAIT_SECONDS);
        while (closeDone.getCount() > 0 && deadline - System.nanoTime() > 0) {
            try {
                closeDone.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("RedisLockClient " + clientId + " is closed");
        }
    }

    /**
     * A loss, told on the listeners' thread or the user's executor: never on the scheduler, whose renewals a listener
     * that blocks would stop, nor on the owner's thread, whose {@code unlock()} it would hold up.
     */
    private void reportLostLater(Hold hold) {
        if (closed.get()) {
            return; // the client is closing: its listeners are told nothing more
        }
        Thread handing = Thread.currentThread();
        try {
            told.execute(() -> {
                if (Thread.currentThread() == handing) {
                    events.execute(() -> reportLost(hold)); // a direct executor: off the thread that handed it over
                }
                else {
                    reportLost(hold);
                }
            });
        }
        catch (RejectedExecutionException closing) {
            // the client is closing: its listeners are told nothing more
        }
    }

    private void reportLost(Hold hold) {
        LockLostEvent event = new LockLostEvent(hold.keys().name(), hold.keys().lock(), hold.owner(),
                hold.fencingToken(), Instant.now());
        log.warn("Lock '{}' held by {} was lost: its lease ran out, it was force-unlocked, or Redis lost it",
                event.lockName(), event.ownerId());
        for (LockLostListener listener : listeners) {
            try {
                listener.lockLost(event);
            }
            catch (Throwable ex) {
                // one listener's failure, even an Error, must reach neither the others nor the watchdog
                log.error("LockLostListener {} failed", listener, ex);
            }
        }
    }

    /**
     * Where the asynchronous calls' futures complete: the JVM's common pool, not a thread of the driver (which reads
     * every reply of the connection, renewals included) nor one of this client's two. Where that pool runs nothing
     * (parallelism 0), a thread per completion, as {@code CompletableFuture} itself then does.
     */
    private static Executor completions() {
        // the pool reports a parallelism of 1 when set to 0, and then starts no worker: only its setting tells
        boolean runsNothing = "0".equals(System.getProperty("java.util.concurrent.ForkJoinPool.common.parallelism"));
        return runsNothing ? new CompletableFuture<Void>().defaultExecutor() : ForkJoinPool.commonPool();
    }
}
