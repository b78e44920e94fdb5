package io.github.relock.spring.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.springframework.core.CoroutinesUtils;
import org.springframework.util.ReflectionUtils;

import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlin.coroutines.intrinsics.IntrinsicsKt;
import kotlinx.coroutines.BuildersKt;
import kotlinx.coroutines.CompletableJob;
import kotlinx.coroutines.CoroutineScopeKt;
import kotlinx.coroutines.CoroutineStart;
import kotlinx.coroutines.Deferred;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.JobKt;
import kotlinx.coroutines.SupervisorKt;
import kotlinx.coroutines.flow.Flow;
import kotlinx.coroutines.flow.FlowKt;
import kotlinx.coroutines.reactor.ReactorContext;
import kotlinx.coroutines.reactor.ReactorFlowKt;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The coroutines of one locked call of a suspend function or Flow, run as children of a job of the call's own.
 * Cancelling a coroutine only asks it to stop: its {@code finally} blocks, and work it moved to another
 * dispatcher, may still run after Reactor's cancel has returned. The job completes only once every child has
 * finished, so the lock is given back after that ({@link #stopped()}). Loaded only when Kotlin is present.
 */
final class CoroutineBody {

    private static final int NOT_STARTED = 0;
    private static final int COLLECTING = 1;
    private static final int ENDED = 2;

    private final CompletableJob job;
    private final @Nullable CoroutineContext caller;
    private final AtomicInteger flowState = new AtomicInteger(NOT_STARTED);
    private volatile @Nullable CompletableJob collecting; // a Flow's collection, once its Flux is built

    /**
     * {@code arguments} of a suspend function end with the caller's Continuation: the body then runs in the
     * caller's context (its dispatcher, its elements), and the call's job is a child of the caller's, so the
     * caller, and a lock it holds, ends only after this body. A Flow's collector is not known here.
     */
    CoroutineBody(@Nullable Object[] arguments) {
        Object last = arguments.length > 0 ? arguments[arguments.length - 1] : null;
        this.caller = last instanceof Continuation<?> continuation ? continuation.getContext() : null;
        Job parent = caller != null ? caller.get(Job.Key) : null;
        // a supervisor: the body's failure reaches the caller as the call's exception, not as a cancel of it
        this.job = SupervisorKt.SupervisorJob(parent);
    }

    boolean suspending() {
        return caller != null;
    }

    /**
     * Calls the suspend function on its target, as the compiled caller would, in a child coroutine of this
     * call's job that sees the subscriber's Reactor {@code Context} (and so the lock's owner).
     */
    Mono<Object> call(Method method, Object target, @Nullable Object[] arguments) {
        ReflectionUtils.makeAccessible(method);
        return Mono.deferContextual(view -> {
            CoroutineContext context = (caller != null ? caller.minusKey(Job.Key) : Dispatchers.getUnconfined())
                    .plus(new ReactorContext(Context.of(view)));
            Deferred<Object> running = BuildersKt.async(CoroutineScopeKt.CoroutineScope(job), context,
                    CoroutineStart.DEFAULT, (scope, continuation) -> invoke(method, target, arguments, continuation));
            return CoroutinesUtils.deferredToMono(running).doOnCancel(() -> running.cancel(null));
        });
    }

    private static @Nullable Object invoke(Method method, Object target, @Nullable Object[] arguments,
            Object continuation) {
        Object[] withOurs = arguments.clone();
        withOurs[withOurs.length - 1] = continuation; // the compiled form takes its Continuation last
        try {
            Object result = method.invoke(target, withOurs);
            // a value class returned without suspending comes unboxed; the caller expects it boxed
            return result == IntrinsicsKt.getCOROUTINE_SUSPENDED() ? result : KotlinSignatures.boxed(method, result);
        }
        catch (InvocationTargetException ex) {
            throw CoroutineBody.<RuntimeException>rethrow(ex.getTargetException());
        }
        catch (IllegalAccessException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T rethrow(Throwable error) throws T {
        throw (T) error; // what the suspend function threw reaches the coroutine as it is, checked or not
    }

    /**
     * {@code result} as a Flux if it is a Flow, else null. Its collection counts as a child of this call's job
     * from the moment it is built; a collection that had not started when the call ended never starts, so a
     * release cannot slip in between a cancel and the first line of the Flow's body.
     */
    @Nullable Flux<Object> ifFlow(Object result) {
        if (!(result instanceof Flow<?> flow)) {
            return null;
        }
        collecting = JobKt.Job(job);
        @SuppressWarnings("unchecked")
        Flow<Object> tracked = FlowKt.onCompletion(FlowKt.onStart((Flow<Object>) flow, (collector, continuation) -> {
            if (!flowState.compareAndSet(NOT_STARTED, COLLECTING)) {
                throw new CancellationException("The locked call ended before its Flow was collected");
            }
            return Unit.INSTANCE;
        }), (collector, cause, continuation) -> {
            flowState.set(ENDED);
            collecting.complete();
            return Unit.INSTANCE;
        });
        return ReactorFlowKt.asFlux(tracked);
    }

    /** The call is over (however it ended): its job completes once its coroutines have, and frees the caller's. */
    void finish() {
        endUnstartedFlow();
        job.complete();
    }

    private void endUnstartedFlow() {
        CompletableJob flowJob = collecting;
        if (flowJob != null && flowState.compareAndSet(NOT_STARTED, ENDED)) {
            flowJob.complete();
        }
    }

    /** Completes once every coroutine of the call has finished, its {@code finally} blocks included. */
    Mono<Void> stopped() {
        return Mono.create(sink -> {
            endUnstartedFlow();
            job.complete();
            job.invokeOnCompletion(cause -> {
                sink.success();
                return Unit.INSTANCE;
            });
        });
    }
}
