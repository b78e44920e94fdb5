package io.github.relock.chaos;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostListener;

/** Records every loss report in the history, then throws while the parent says listeners fail. */
final class FaultyListener implements LockLostListener {

    private final int jvm;

    FaultyListener(int jvm) {
        this.jvm = jvm;
    }

    @Override
    public void lockLost(LockLostEvent event) {
        Out.emit(new Ev.Told(jvm, event.ownerId(), event.key(), event.fencingToken(), System.nanoTime(), "listener",
                "-"));
        ChildFaults.throwFromListenerIfDue();
    }
}
