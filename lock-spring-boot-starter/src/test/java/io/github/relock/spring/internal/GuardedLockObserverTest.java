package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.relock.spring.LockObserver;

/** Observers are guarded once: several beans each by {@link LockObservers}, which is not wrapped again. */
class GuardedLockObserverTest {

    @Test
    void severalObserversAreGuardedEachOnceAndNotAsAWhole() {
        List<String> heard = new ArrayList<>();
        LockObserver throwing = lockName -> {
            throw new IllegalStateException("observer bug");
        };
        LockObserver listening = lockName -> {
            heard.add(lockName);
            return LockObserver.Acquisition.NOOP;
        };
        LockObserver both = LockObservers.of(List.of(throwing, listening));
        assertThat(GuardedLockObserver.of(both)).isSameAs(both);
        assertThatNoException().isThrownBy(() -> both.acquisitionStarted("order:1").acquired().released(null));
        assertThat(heard).as("the second observer hears of it although the first threw").containsExactly("order:1");
    }

    @Test
    void aSingleObserverIsGuardedOnce() {
        LockObserver single = lockName -> LockObserver.Acquisition.NOOP;
        LockObserver guarded = GuardedLockObserver.of(single);
        assertThat(guarded).isNotSameAs(single);
        assertThat(GuardedLockObserver.of(guarded)).isSameAs(guarded);
    }
}
