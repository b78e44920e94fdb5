package io.github.relock.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The event thread is not alive once close() has returned. An executor counts itself terminated just before
 * its last thread exits, so waiting for the executor alone let the thread be seen alive right after close()
 * (the fault schedule's "thread alive after close()" rule).
 */
@Timeout(60)
class EventThreadTest {

    @Test
    void noThreadIsAliveWhenCloseReturns() throws Exception {
        List<String> alive = new ArrayList<>();
        for (int round = 0; round < 300 && alive.isEmpty(); round++) {
            String name = "relock-events-test" + round;
            EventThread runner = new EventThread(name);
            CountDownLatch ran = new CountDownLatch(3);
            for (int i = 0; i < 3; i++) {
                runner.execute(ran::countDown);
            }
            assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
            runner.close();
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (thread.getName().equals(name) && thread.isAlive()) {
                    alive.add("round " + round + ": " + thread.getName());
                }
            }
        }
        assertThat(alive).isEmpty();
    }
}
