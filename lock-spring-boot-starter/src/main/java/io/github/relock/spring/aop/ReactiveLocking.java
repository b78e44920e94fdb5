package io.github.relock.spring.aop;

import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.LockOwner;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockMode;
import io.github.relock.spring.LockNotAcquiredException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
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
    Publisher<?> invoke(MethodInvocation invocation, LockDefinition definition, List<String> lockNames,
            Object target) {
        if (!(invocation instanceof ProxyMethodInvocation proxied)) {
            throw new IllegalStateException("@DistributedLock on " + definition.describeMethod() + " returns a "
                    + "reactive type, which needs a Spring AOP proxy invocation to call the method at subscription");
        }
        MethodInvocation template = proxied.invocableClone(); // proceeds at most once: each subscription clones it
        Flux<Object> locked = Flux.deferContextual(context -> subscribe(template, definition, lockNames.get(0),
                target, context));
        return definition.method().getReturnType() == Mono.class ? Mono.fromDirect(locked) : locked;
    }

    private Flux<Object> subscribe(MethodInvocation template, LockDefinition definition, String lockName,
            Object target, ContextView context) {
        DistributedLockClient client = services.client();
        LockOwner owner = chainOwner(context, client);
        ReentrantDistributedLock lock = handle(client, definition, lockName, owner);
        ReactiveHold hold = new ReactiveHold(lock, owner, definition, services.observer());
        return Flux.usingWhen(hold.acquire(),
                acquired -> acquired ? body(template, owner) : notAcquired(template, definition, lock, target, hold),
                acquired -> acquired ? hold.releaseAfterSuccess() : Mono.empty(),
                (acquired, error) -> acquired ? hold.releaseAfterFailure(error) : Mono.empty(),
                acquired -> acquired ? hold.releaseAfterCancel() : Mono.empty());
    }

    /** The owner of an enclosing locked publisher in this chain, if it is this client's; else a new one. */
    private static LockOwner chainOwner(ContextView context, DistributedLockClient client) {
        Object outer = context.getOrDefault(OWNER_KEY, null);
        if (outer instanceof LockOwner owner && owner.id().startsWith(client.getClientId() + ":")) {
            return owner;
        }
        return client.newOwner();
    }

    private static ReentrantDistributedLock handle(DistributedLockClient client, LockDefinition definition,
            String name, LockOwner owner) {
        if (definition.mode().readWrite()) {
            ReadWriteDistributedLock lock = client.getReadWriteLock(name, owner);
            return definition.mode() == LockMode.READ ? lock.readLock() : lock.writeLock();
        }
        return definition.fair() ? client.getFairLock(name, owner) : client.getLock(name, owner);
    }

    /** Calls the method now, under the lock; what it returns is subscribed with the owner in its Context. */
    private static Flux<Object> body(MethodInvocation template, LockOwner owner) {
        return Flux.defer(() -> publisher(() -> template instanceof ProxyMethodInvocation proxied
                ? proxied.invocableClone().proceed() : template.proceed()))
                .contextWrite(context -> context.put(OWNER_KEY, owner));
    }

    /** The fallback method's publisher, else the failure handler's, else the error; the method never runs. */
    private Flux<Object> notAcquired(MethodInvocation template, LockDefinition definition,
            ReentrantDistributedLock lock, Object target, ReactiveHold hold) {
        LockNotAcquiredException exception = hold.notAcquiredException();
        return Flux.defer(() -> publisher(() -> new LockCall(template, definition, lock, target, services)
                .whenNotAcquired(exception)));
    }

    private static Flux<Object> publisher(Call call) {
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
        if (!(result instanceof Publisher<?> publisher)) {
            return Flux.error(new IllegalStateException("A reactive @DistributedLock method's fallback or "
                    + "LockFailureHandler returned " + result.getClass().getName() + "; return a Mono or Flux"));
        }
        @SuppressWarnings("unchecked")
        Publisher<Object> typed = (Publisher<Object>) publisher;
        return Flux.from(typed);
    }

    @FunctionalInterface
    private interface Call {
        @Nullable Object run() throws Throwable;
    }
}
