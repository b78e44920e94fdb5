package io.github.relock.spring;

import java.util.List;
import java.util.Objects;

import io.github.relock.core.HeldLock;
import io.github.relock.spring.internal.held.CallLocks;
import io.github.relock.spring.internal.held.ThreadLockScope;
import reactor.core.publisher.Mono;

/**
 * The hold of the {@code @DistributedLock} call that is running: its lock name, fencing token and hold count, for
 * code inside the call that passes the token on or must only run locked. Read locally, with no Redis round trip.
 *
 * <p>On a thread (a method that returns a plain value, or the part of a {@code CompletionStage} method that runs
 * before it returns):
 * <pre>{@code
 * @DistributedLock(name = "payments", key = "#order.id")
 * @Transactional
 * public Receipt pay(Order order) {
 *     long token = CurrentLock.get().fencingToken();   // the hold of payments:<order id>
 *     FencedJdbc.advance(jdbc, "orders", "id", order.id(), "lock_token", token, Map.of("status", "PAID"));
 *     ...
 * }
 *
 * @DistributedLock(name = "transfer", keys = {"#from.id", "#to.id"})
 * public void transfer(Account from, Account to, long cents) {   // Account.id() is a String
 *     long fromToken = CurrentLock.get(from.id()).fencingToken();   // several locks: pick one by its key
 * }
 *
 * void book(Entry entry) {
 *     CurrentLock.assertHeld();   // throws unless called from inside a @DistributedLock call
 * }
 * }</pre>
 *
 * In a method returning {@code Mono} or {@code Flux}, and in a Kotlin {@code suspend} function, the hold travels in
 * the Reactor {@code Context} of the subscription, not on a thread:
 * <pre>{@code
 * @DistributedLock(name = "payments", key = "#orderId")
 * public Mono<Receipt> pay(long orderId) {
 *     return CurrentLock.mono().flatMap(held -> charge(orderId, held.fencingToken()));
 * }
 *
 * @DistributedLock(name = "payments", key = "#orderId")
 * suspend fun pay(orderId: Long): Receipt {
 *     val token = CurrentLock.mono().awaitSingle().fencingToken()
 *     ...
 * }
 * }</pre>
 *
 * A nested call that re-enters the same lock sees the same hold and token (with the higher hold count); a nested
 * call on another lock is the innermost call until it returns. The hold is what this client last saw: a hold
 * whose lease ran out meanwhile keeps its token, which a fenced write then refuses
 * ({@link io.github.relock.core.StaleFencingTokenException}). Reactor is needed only for {@link #mono()}.
 */
public final class CurrentLock {

    private CurrentLock() {
    }

    /**
     * The hold of the innermost {@code @DistributedLock} call running on this thread.
     *
     * @throws IllegalStateException if no {@code @DistributedLock} call runs on this thread (outside one, in a
     *                               reactive or {@code suspend} method: use {@link #mono()}), or the call holds
     *                               several locks (use {@link #get(String)})
     */
    public static HeldLock get() {
        return innermost("CurrentLock.get()").only();
    }

    /**
     * The hold on {@code key} of the innermost {@code @DistributedLock} call running on this thread, for a call
     * with several keys ({@code keys = {"#from.id", "#to.id"}}).
     *
     * @param key the value one of the call's key expressions gave ({@code 42} for the lock {@code transfer:42}),
     *            ({@code String.valueOf(id)} for a number), or the whole lock name
     * @throws IllegalStateException if no {@code @DistributedLock} call runs on this thread, or it holds no lock
     *                               for that key
     */
    public static HeldLock get(String key) {
        Objects.requireNonNull(key, "key must not be null");
        return innermost("CurrentLock.get(key)").forKey(key);
    }

    /**
     * The hold of the innermost {@code @DistributedLock} call of the subscribing chain, read from its Reactor
     * {@code Context} at subscription: for methods returning {@code Mono} or {@code Flux}, and (with
     * {@code awaitSingle()}) Kotlin {@code suspend} functions and {@code Flow}s. Subscribe to it inside the
     * publisher the annotated method returns.
     *
     * @return a {@code Mono} that emits the hold, or fails with {@link IllegalStateException} outside a reactive
     *         {@code @DistributedLock} call
     */
    public static Mono<HeldLock> mono() {
        return FromReactorContext.mono();
    }

    /**
     * Fails unless a {@code @DistributedLock} call runs on this thread and this client does not know its locks
     * to be lost: a guard for code that must only run locked.
     *
     * @throws IllegalStateException if no {@code @DistributedLock} call runs on this thread, or one of its locks
     *                               is lost (its lease ran out, or the watchdog found it gone)
     */
    public static void assertHeld() {
        CallLocks call = innermost("CurrentLock.assertHeld()");
        List<String> lost = call.lost();
        if (!lost.isEmpty()) {
            throw new IllegalStateException("The current @DistributedLock call no longer holds " + lost + ": the "
                    + "lease ran out or the lock was taken away; work done now may overlap with another holder's");
        }
    }

    private static CallLocks innermost(String asked) {
        CallLocks call = ThreadLockScope.innermost();
        if (call == null) {
            throw new IllegalStateException(asked + " was called outside any @DistributedLock call on this thread "
                    + "(" + Thread.currentThread().getName() + "), so no lock is held here. Call it from inside the "
                    + "annotated method, through its Spring proxy; in a method returning Mono or Flux, or a suspend "
                    + "function, use CurrentLock.mono()");
        }
        return call;
    }

    /** Everything that needs Reactor: loaded only when {@link #mono()} is called. */
    private static final class FromReactorContext {

        static Mono<HeldLock> mono() {
            return Mono.deferContextual(context -> {
                Object call = context.getOrDefault(CallLocks.CONTEXT_KEY, null);
                if (call instanceof CallLocks locks) {
                    return Mono.fromCallable(locks::only);
                }
                return Mono.error(new IllegalStateException("CurrentLock.mono() was subscribed outside any reactive "
                        + "@DistributedLock call: nothing in this subscription's Context holds a lock. Subscribe to "
                        + "it inside the Mono or Flux the annotated method returns; on a thread, use CurrentLock.get()"));
            });
        }
    }
}
