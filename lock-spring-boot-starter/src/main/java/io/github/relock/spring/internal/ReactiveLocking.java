package io.github.relock.spring.internal;

import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.AopProxyUtils;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockMode;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.internal.held.CallLocks;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.context.ContextView;

/**
 * Holds the lock of a method returning a {@code Mono} or {@code Flux} for each subscription: the method
 * returns at once, and every subscriber takes the lock without blocking, runs the method, and gives the
 * lock back when the publisher completes, fails or is cancelled. The owner is the subscription chain: it
 * travels in the Reactor {@code Context}, so annotated publishers nested in the chain re-enter. Only
 * loaded once a reactive method is called, so applications without Reactor never need it.
 */
final class ReactiveLocking {

    /** The Reactor {@code Context} key of the chain's {@link LockOwner}. */
    static final String OWNER_KEY = "io.github.relock.spring.owner";

    private final LockServices services;

    ReactiveLocking(LockServices services) {
        this.services = services;
    }

    /**
     * The locked publisher. Nothing happens until it is subscribed to; each subscription calls the method
     * again, with the arguments of this call (the lock names were resolved from them already).
     */
    Object invoke(MethodInvocation invocation, LockDefinition definition, List<String> lockNames,
            Object target) {
        if (!(invocation instanceof ProxyMethodInvocation proxied)) {
            throw new IllegalStateException("@DistributedLock on " + definition.describeMethod() + " returns a "
                    + "reactive type, which needs a Spring AOP proxy invocation to call the method at subscription");
        }
        MethodInvocation template = proxied.invocableClone(); // proceeds at most once: each subscription clones it
        String lockName = lockNames.get(0);
        if (KotlinReturns.single(definition.method())) { // a suspend function's result too: Spring awaits it
            // Mono.usingWhen emits the value only once the lock is given back: a block() that cancels on it
            // then cannot race the release
            return Mono.deferContextual(context -> {
                Subscription call = subscription(template, definition, lockName, target, context);
                return Mono.usingWhen(call.hold.acquire(), acquired -> Mono.fromDirect(call.run(acquired)),
                        call.hold::releaseAfterSuccess, call.hold::releaseAfterFailure, call.hold::releaseAfterCancel)
                        .onErrorMap(ReactiveLocking::releaseFailure).doFinally(signal -> call.ended());
            });
        }
        return KotlinReturns.orFlow(definition.method(), Flux.deferContextual(context -> {
            Subscription call = subscription(template, definition, lockName, target, context);
            return Flux.usingWhen(call.hold.acquire(), call::run, call.hold::releaseAfterSuccess,
                    call.hold::releaseAfterFailure, call.hold::releaseAfterCancel)
                    .onErrorMap(ReactiveLocking::releaseFailure).doFinally(signal -> call.ended());
        }));
    }

    /** What the release found (a lock lost meanwhile), without the wrapper Reactor puts around a failed cleanup. */
    private static Throwable releaseFailure(Throwable error) {
        String message = error.getMessage();
        Throwable cause = error.getCause();
        return (cause instanceof LockLostException || cause instanceof IllegalMonitorStateException) && message != null
                && message.startsWith("Async resource cleanup failed") ? cause : error;
    }

    private Subscription subscription(MethodInvocation template, LockDefinition definition, String lockName,
            Object target, ContextView context) {
        DistributedLockClient client = services.client();
        LockOwner outer = chainOwner(context, client);
        LockOwner owner = outer != null ? outer : client.newOwner();
        ReentrantDistributedLock lock = handle(client, definition, lockName, owner);
        ReactiveHold hold = new ReactiveHold(lock, owner, definition, services.observer(), services.client()::isClosed);
        CoroutineBody coroutines = KotlinReturns.coroutines(definition.method())
                ? new CoroutineBody(template.getArguments()) : null;
        if (coroutines != null) {
            hold.releaseAfterCancelWaitsFor(coroutines.stopped());
        }
        return new Subscription(template, definition, target, owner, outer == null, lock, hold, coroutines);
    }

    /** One subscription: its owner (the chain's, or a new one), lock handle and hold. */
    private final class Subscription {

        final MethodInvocation template;
        final LockDefinition definition;
        final Object target;
        final LockOwner owner;
        final boolean outermost;
        final ReentrantDistributedLock lock;
        final ReactiveHold hold;
        final @Nullable CoroutineBody coroutines;

        Subscription(MethodInvocation template, LockDefinition definition, Object target, LockOwner owner,
                boolean outermost, ReentrantDistributedLock lock, ReactiveHold hold, @Nullable CoroutineBody coroutines) {
            this.template = template;
            this.definition = definition;
            this.target = target;
            this.owner = owner;
            this.outermost = outermost;
            this.lock = lock;
            this.hold = hold;
            this.coroutines = coroutines;
        }

        /** However the subscription ended: the lock goes back if no release claimed it, the call's job ends. */
        void ended() {
            hold.releaseIfStillHeld();
            if (coroutines != null) {
                coroutines.finish();
            }
        }

        /** Once the wait is over: the method's publisher if the lock was taken, else the fallback's. */
        Flux<Object> run(boolean acquired) {
            if (!acquired) {
                return notAcquired(template, definition, lock, target, hold, coroutines);
            }
            Flux<Object> body = body(this);
            return outermost ? failOnLoss(body, owner, definition) : body;
        }
    }

    /** The owner of an enclosing locked publisher in this chain, if it is this client's. */
    private static @Nullable LockOwner chainOwner(ContextView context, DistributedLockClient client) {
        Object outer = context.getOrDefault(OWNER_KEY, null);
        return outer instanceof LockOwner owner && owner.id().startsWith(client.getClientId() + ":") ? owner : null;
    }

    /**
     * The body, failing with {@link LockLostException} (which cancels it) as soon as a lock of the chain's
     * owner is lost. Only the outermost call listens: the owner's nested calls share its one registration.
     */
    private Flux<Object> failOnLoss(Flux<Object> body, LockOwner owner, LockDefinition definition) {
        return Flux.defer(() -> {
            Sinks.Empty<Object> lost = Sinks.empty();
            services.lossNotifier().register(owner.id(), event -> lost.tryEmitError(new LockLostException(
                    event.lockName(), event.key(), "Lock '" + event.lockName() + "' of " + definition.describeMethod() + " was lost "
                    + "while its publisher was still running (its lease or maximum hold time ran out); the work was "
                    + "cancelled, and may have overlapped with another holder's")));
            return Flux.merge(body.doOnComplete(lost::tryEmitEmpty), lost.asMono())
                    .doFinally(signal -> services.lossNotifier().unregister(owner.id()));
        });
    }

    private static ReentrantDistributedLock handle(DistributedLockClient client, LockDefinition definition,
            String name, LockOwner owner) {
        if (definition.mode().readWrite()) {
            ReadWriteDistributedLock lock = client.getReadWriteLock(name, owner);
            return definition.mode() == LockMode.READ ? lock.readLock() : lock.writeLock();
        }
        return definition.fair() ? client.getFairLock(name, owner) : client.getLock(name, owner);
    }

    /**
     * Calls the method now, under the lock; what it returns is subscribed with the owner (for nested calls to
     * re-enter) and the hold (for {@code CurrentLock.mono()}) in its Context.
     */
    private static Flux<Object> body(Subscription call) {
        MethodInvocation template = call.template;
        CoroutineBody coroutines = call.coroutines;
        boolean callDirectly = coroutines != null && KotlinReturns.suspending(template.getMethod())
                && KotlinReturns.innermost(template, AopProxyUtils.ultimateTargetClass(call.target));
        return Flux.defer(() -> publisher(coroutines, () -> callDirectly
                ? coroutines.call(template.getMethod(), call.target, template.getArguments())
                : template instanceof ProxyMethodInvocation proxied ? proxied.invocableClone().proceed()
                : template.proceed()))
                .contextWrite(context -> context.put(OWNER_KEY, call.owner).put(CallLocks.CONTEXT_KEY, call.hold.call()));
    }

    /** The fallback method's publisher, else the failure handler's, else the error; the method never runs. */
    private Flux<Object> notAcquired(MethodInvocation template, LockDefinition definition,
            ReentrantDistributedLock lock, Object target, ReactiveHold hold, @Nullable CoroutineBody coroutines) {
        LockNotAcquiredException exception = hold.notAcquiredException();
        return Flux.defer(() -> publisher(coroutines, () -> new LockCall(template, definition, lock, target, services)
                .whenNotAcquired(exception)));
    }

    private static Flux<Object> publisher(@Nullable CoroutineBody coroutines, Call call) {
        @Nullable Object result;
        try {
            result = call.run();
        }
        catch (Throwable ex) {
            return Flux.error(ex);
        }
        if (result == null) {
            return Flux.empty();
        }
        Flux<Object> flow = coroutines != null ? coroutines.ifFlow(result) : null;
        if (flow != null) {
            return flow; // collected in the call's own job, so that a cancel can wait for it
        }
        Publisher<Object> publisher = KotlinReturns.asPublisher(result);
        if (publisher == null && coroutines != null && coroutines.suspending()) {
            return Flux.just(result); // a failure handler's value for a suspend function: its result as it is
        }
        if (publisher == null) {
            return Flux.error(new IllegalStateException("A reactive @DistributedLock method's fallback or "
                    + "LockFailureHandler returned " + result.getClass().getName() + "; return a Mono, Flux or Flow"));
        }
        return Flux.from(publisher);
    }

    @FunctionalInterface
    private interface Call {
        @Nullable Object run() throws Throwable;
    }
}
