package io.github.relock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method while holding a Redis lock, so that one call at a time runs per lock key
 * across every instance of the application.
 *
 * <pre>{@code
 * @DistributedLock(key = "#order.id")
 * public void ship(Order order) { ... }
 *
 * @DistributedLock(name = "payments", key = "#payment.accountId", waitTime = "2s", leaseTime = "${payments.lease:10s}")
 * public Receipt pay(Payment payment) { ... }
 *
 * @DistributedLock(name = "transfer", keys = {"#from.id", "#to.id"})
 * public void transfer(Account from, Account to, long cents) { ... }
 *
 * @DistributedLock(name = "docs", key = "#id", mode = LockMode.READ)
 * public Doc read(long id) { ... }
 * }</pre>
 *
 * <p>The lock is named {@code name + ":" + key}, so the Redis key of the first example is
 * {@code lock:{com.example.OrderService.ship:42}}. A nested annotated call that resolves to the same lock
 * on the same thread re-enters it (hold count 2), even across beans; the lock is freed when the outermost
 * call returns.
 *
 * <p>A key must name the thing it locks: an expression that evaluates to {@code null}, to a blank string,
 * to an array or to an object without its own {@code toString()} ({@code Order@75504cef}) fails the call
 * with {@link InvalidLockKeyException} before the method runs; lock on {@code #order.id} instead.
 *
 * <p>Everything is checked at startup: a malformed expression, an unknown parameter name, a duration
 * that does not parse, a missing fallback method, or an annotation on a method that Spring cannot
 * proxy (private, final, static, or in a final class) stops the application with a message that names
 * the bean and the method. The annotation may sit on an interface method: it applies to the bean's
 * implementation, whichever class declares it. A call from inside the bean to one of its own annotated
 * methods ({@code this.pay(...)}) does not go through the proxy and runs without the lock; startup logs a
 * warning for each such call it finds in the bytecode ({@code relock.self-invocation=fail} makes it a
 * startup failure).
 *
 * <p>Return types: for {@link java.util.concurrent.CompletableFuture} and
 * {@link java.util.concurrent.CompletionStage} the lock is held until the method's own future completes.
 * The caller gets a separate future: cancelling it does not stop the work, so the lock is kept until the
 * work ends, and a lock lost meanwhile fails it with {@link io.github.relock.core.LockLostException}. Such
 * a method cannot re-enter a lock that its calling thread holds: it fails at once with an
 * {@link IllegalStateException} instead of waiting for itself. For Reactor's {@code Mono} and {@code Flux},
 * Kotlin {@code suspend} functions and {@code Flow}s, each subscription (call, collection) takes the lock
 * without blocking and gives it back when the work ends; see the README. Other reactive types are refused
 * at startup, and so are lazy ones ({@link java.util.stream.Stream} and the other
 * {@link java.util.stream.BaseStream}s, {@link java.util.Iterator}, {@link java.util.Spliterator},
 * {@link java.util.Enumeration}), whose elements would be produced after the release: collect the result
 * inside the method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
// AOT: the aspect invokes the method, its fallback and its key arguments' getters reflectively
@Reflective(DistributedLockReflectiveProcessor.class)
public @interface DistributedLock {

    /**
     * SpEL expression for the lock key, evaluated against the call: {@code #order.id}, {@code #p0},
     * {@code #a0}, {@code #root.method.name}, {@code #root.target}, {@code #root.args[1]},
     * {@code @someBean.tenant()}. Empty (with no {@link #keys()}): one lock for the whole method. A key
     * that evaluates to {@code null} or blank fails the call with {@link InvalidLockKeyException}.
     */
    String key() default "";

    /**
     * Several SpEL key expressions: all the locks are taken, or none. They are taken in a fixed order
     * (sorted by lock name), so two calls that lock the same keys in a different argument order cannot
     * deadlock. Use either {@link #key()} or {@code keys}, not both.
     */
    String[] keys() default {};

    /**
     * Logical name of the lock: the first part of the Redis lock name, the tag on observations, and the
     * entry under {@code relock.locks.<name>} in {@code application.yml} that tunes it. It must not contain
     * {@code ':'}, which separates it from the key. Default: the fully qualified name of the class that
     * declares the method, a dot, and the method name ({@code com.example.OrderService.ship}; configure it
     * as {@code relock.locks[com.example.OrderService.ship]}), so that same-named classes in different
     * packages never share locks. A method of a hidden or synthetic class (a lambda bean) has no such name
     * that every JVM shares, and must set one (checked at startup).
     */
    String name() default "";

    /**
     * How long a call waits for the lock: {@code 500ms}, {@code 2s}, {@code PT5S}, or a {@code ${...}}
     * placeholder; {@code 0s} means one attempt. Empty: {@code relock.locks.<name>.wait-time}, else
     * {@code relock.wait-time}.
     */
    String waitTime() default "";

    /**
     * A fixed lease: the lock ends this long after it was taken even if the method still runs. Same
     * formats as {@link #waitTime()}. Empty: {@code relock.locks.<name>.lease-time}, else
     * {@code relock.lease-time}; if those are empty too, the watchdog keeps the lock while the method
     * runs.
     */
    String leaseTime() default "";

    /**
     * How long a call may hold the lock at most: a call still holding it after that (a hung method, a future
     * that never completes) loses it, released at the next watchdog round and reported lost
     * ({@link io.github.relock.core.LockLostException}). Between 1 ms and 365 days; same formats as
     * {@link #waitTime()}. Empty: {@code relock.locks.<name>.max-hold}, else {@code relock.max-hold}; if those
     * are empty too, no limit. A malformed or out-of-range value stops startup.
     */
    String maxHold() default "";

    /**
     * Name of a method on the same bean to call instead when the lock is not acquired in time. It takes
     * the same parameters as the annotated method, optionally followed by one parameter that accepts a
     * {@link LockNotAcquiredException}, and returns a type compatible with the annotated method's.
     * Empty: the application's {@link LockFailureHandler} bean decides, and without one the call throws
     * {@link LockNotAcquiredException}. A fallback with a {@code @DistributedLock} of its own is called
     * through the bean's proxy, so its own lock applies; any other is called on the bean itself.
     */
    String fallbackMethod() default "";

    /**
     * The kind of lock: {@link LockMode#EXCLUSIVE} (the default), or a side of a read-write lock,
     * {@link LockMode#READ} or {@link LockMode#WRITE}, where calls that only read may run together. A
     * read-write mode takes one key; one lock name must not mix EXCLUSIVE with READ or WRITE (checked at
     * startup).
     */
    LockMode mode() default LockMode.EXCLUSIVE;

    /**
     * A fair lock: waiting calls get it first come, first served, across every instance, in the order Redis
     * received their first attempts. Only with mode {@link LockMode#EXCLUSIVE} and one key. Also set by
     * {@code relock.locks.<name>.fair=true}. One lock name must be fair in every method or in none (checked
     * at startup): a fair lock and a plain one of the same name do not exclude each other. Across instances
     * that disagree (a configuration change rolling out), whichever kind comes second while the other is held
     * fails the call with {@link io.github.relock.core.LockKindMismatchException}.
     */
    boolean fair() default false;
}
