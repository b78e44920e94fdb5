package io.github.relock.chaos;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One driver thread on the annotated methods: a synchronous, leased or async call on a random key, whose
 * body sometimes nests a second annotated call on the same key; an async caller waits for the work, or
 * cancels the future at a random moment, or gives up waiting early.
 */
final class AnnotatedDriver implements Runnable {

    private final int jvm;
    private final Random random;
    private final ClientSlot slot;
    private final int locks;

    AnnotatedDriver(int jvm, Random random, ClientSlot slot, int locks) {
        this.jvm = jvm;
        this.random = random;
        this.slot = slot;
        this.locks = locks;
    }

    @Override
    public void run() {
        while (!slot.stopping()) {
            slot.op("annotated", this::call);
            Work.think(random);
        }
    }

    private void call() {
        String key = "k" + random.nextInt(locks);
        int roll = random.nextInt(100);
        Call.Kind kind = roll < 40 ? Call.Kind.SYNC : roll < 65 ? Call.Kind.LEASED : Call.Kind.ASYNC;
        Call call = new Call(jvm, Ids.op(jvm), System.nanoTime(), Work.millis(random),
                kind == Call.Kind.ASYNC ? Call.Kind.NONE : nest(), Work.millis(random), null);
        CompletableFuture<Void> future = AnnotatedCalls.call(slot.work(), kind, key, call);
        if (future != null) {
            follow(future, call, key);
        }
    }

    private Call.Kind nest() {
        int roll = random.nextInt(100);
        return roll < 55 ? Call.Kind.NONE : roll < 70 ? Call.Kind.SYNC : roll < 85 ? Call.Kind.LEASED
                : Call.Kind.ASYNC;
    }

    /** What the caller of an async method does with the future: waits, cancels it, or stops waiting. */
    private void follow(CompletableFuture<Void> future, Call call, String key) {
        int roll = random.nextInt(100);
        if (roll < 55) {
            AnnotatedCalls.await(future, call.workMillis() + TimeUnit.SECONDS.toMillis(10));
        }
        else if (roll < 80) {
            LockSupport.parkNanos(Timing.nanos(random.nextInt((int) call.workMillis() + 1)));
            long invoke = System.nanoTime();
            boolean cancelled = future.cancel(true);
            // the id of the call it cancels, so that the cancel shows up in that call's history
            Out.emit(new Ev.Op(jvm, call.opId() + "-cancel", "CANCEL", slot.work().redisKey(key), invoke,
                    System.nanoTime(), -1, cancelled ? "cancelled" : "done", "-"));
        }
        else {
            try {
                future.get(1 + random.nextInt((int) Math.max(1, call.workMillis() / 2)), TimeUnit.MILLISECONDS);
            }
            catch (TimeoutException ex) {
                // gave up waiting; the work goes on and releases when it completes
            }
            catch (Exception ex) {
                // its outcome is in the history
            }
        }
    }
}
