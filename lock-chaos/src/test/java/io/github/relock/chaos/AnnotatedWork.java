package io.github.relock.chaos;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.ObjectProvider;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;

/**
 * The annotated methods of a client JVM's application context: synchronous with the watchdog, synchronous
 * with a fixed lease, and one returning a {@link CompletableFuture} whose work runs on an executor. All
 * lock {@code L:<key>}, the same locks the programmatic drivers use. A body reports its section and may
 * nest a second annotated call on the same key through the proxy.
 */
public class AnnotatedWork {

    /** Async bodies still running, in every context of this JVM (a cancelled one runs on). */
    static final AtomicInteger ACTIVE_BODIES = new AtomicInteger();
    private static final ExecutorService EXECUTOR = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "chaos-async-body");
        thread.setDaemon(true);
        return thread;
    });
    /** Per synchronous thread: the hold id of each key it is inside, and how deep. */
    private static final ThreadLocal<Map<String, String>> HOLDS = ThreadLocal.withInitial(HashMap::new);
    private static final ThreadLocal<Map<String, Integer>> DEPTHS = ThreadLocal.withInitial(HashMap::new);

    private final int jvm;
    private final RedisLockClient client;
    private final ObjectProvider<AnnotatedWork> self;
    private final Map<String, String> redisKeys = new ConcurrentHashMap<>();

    public AnnotatedWork(int jvm, RedisLockClient client, ObjectProvider<AnnotatedWork> self) {
        this.jvm = jvm;
        this.client = client;
        this.self = self;
    }

    @DistributedLock(name = "L", key = "#key", waitTime = Timing.ANNOTATED_WAIT_MILLIS + "ms")
    public void sync(String key, Call call) {
        body("sync", key, call, 0);
    }

    @DistributedLock(name = "L", key = "#key", waitTime = Timing.ANNOTATED_WAIT_MILLIS + "ms",
            leaseTime = Timing.ANNOTATED_LEASE_MILLIS + "ms")
    public void leased(String key, Call call) {
        body("leased", key, call, Timing.ANNOTATED_LEASE_MILLIS);
    }

    @DistributedLock(name = "L", key = "#key", waitTime = Timing.ANNOTATED_ASYNC_WAIT_MILLIS + "ms")
    public CompletableFuture<Void> async(String key, Call call) {
        // counted from here until the body ends, or until the future completes if the body never starts
        // (a future cancelled while queued never runs it): 0 queued, 1 running, 2 counted off unstarted
        AtomicInteger state = new AtomicInteger();
        ACTIVE_BODIES.incrementAndGet();
        CompletableFuture<Void> future = CompletableFuture.runAsync(() -> {
            boolean counted = state.compareAndSet(0, 1);
            try {
                asyncBody(key, call);
            }
            finally {
                if (counted) {
                    ACTIVE_BODIES.decrementAndGet();
                }
            }
        }, EXECUTOR);
        future.whenComplete((done, failure) -> {
            if (state.compareAndSet(0, 2)) {
                ACTIVE_BODIES.decrementAndGet();
            }
        });
        return future;
    }

    /** The name {@code @DistributedLock(name = "L", key = ...)} gives the lock of {@code key}. */
    private static String lockName(String key) {
        return LockNames.of("L", key);
    }

    /** The Redis key of the lock of {@code key}. */
    String redisKey(String key) {
        return redisKeys.computeIfAbsent(key, k -> client.getLock(lockName(k)).getKey());
    }

    private void body(String kind, String key, Call call, long leaseMillis) {
        long enter = System.nanoTime();
        Map<String, String> holds = HOLDS.get();
        boolean outermost = !holds.containsKey(key);
        String holdId = outermost ? Ids.hold(jvm) : holds.get(key);
        int depth = DEPTHS.get().merge(key, 1, Integer::sum);
        holds.put(key, holdId);
        String thread = Thread.currentThread().getName();
        Holder found = Holder.annotated(jvm, client, lockName(key), key, held -> thread.equals(held.ownerThread()),
                holdId);
        Holder holder = found != null ? found : Holder.unidentified(jvm, client, lockName(key), holdId);
        ReentrantDistributedLock handle = client.getLock(holder.name); // the calling thread owns it
        try {
            boolean told = Work.run(call.workMillis() / 2, handle::isLost, holder);
            if (!told && call.nest() != Call.Kind.NONE) {
                nested(key, call, holdId);
            }
            if (!told) {
                told = Work.run(call.workMillis() - call.workMillis() / 2, handle::isLost, holder);
            }
            if (!told) {
                holder.write();
            }
        }
        finally {
            long exit = System.nanoTime();
            if (DEPTHS.get().merge(key, -1, Integer::sum) == 0) {
                DEPTHS.get().remove(key);
                holds.remove(key);
            }
            holder.section(leaseMillis, call.invoke(), enter, exit, depth, kind, "body", call.opId());
        }
    }

    /** A second annotated call on the same key from inside the body; an async one is awaited here. */
    private void nested(String key, Call call, String holdId) {
        CompletableFuture<Void> future = AnnotatedCalls.call(self.getObject(), call.nest(), key, call.inner(holdId));
        if (future != null) {
            AnnotatedCalls.await(future, call.innerWorkMillis() + TimeUnit.SECONDS.toMillis(10));
        }
    }

    private void asyncBody(String key, Call call) {
        long enter = System.nanoTime();
        // its owner is the LockOwner the aspect made for this call: the one hold without an owning thread under
        // this name. A nested call that has none runs inside the hold of the call around it (whatever a fix makes
        // of a synchronous call nesting an async one on its key), so its section belongs to that hold.
        String holdId = Ids.hold(jvm);
        Holder found = Holder.annotated(jvm, client, lockName(key), key, held -> held.ownerThread() == null, holdId);
        Holder holder = found != null ? found : Holder.unidentified(jvm, client, lockName(key),
                call.parentHoldId() != null ? call.parentHoldId() : holdId);
        try {
            Work.run(call.workMillis(), () -> false, holder); // no handle on the aspect's owner: nobody to ask
            holder.write();
        }
        finally {
            holder.section(0, call.invoke(), enter, System.nanoTime(), 1, "async", "body", call.opId());
        }
    }
}
