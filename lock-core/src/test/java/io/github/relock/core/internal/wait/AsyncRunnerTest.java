package io.github.relock.core.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No thread of the runner is alive once close() has returned. A pool counts itself terminated just before
 * its last threads exit, so waiting for the pool alone let a thread be seen alive right after close()
 * (CloseRaceTest on a loaded CI machine, and the fault schedule's "thread alive after close()" rule).
 */
@Timeout(60)
class AsyncRunnerTest {

    @Test
    void noThreadIsAliveWhenCloseReturns() throws Exception {
        List<String> alive = new ArrayList<>();
        for (int round = 0; round < 300 && alive.isEmpty(); round++) {
            String name = "relock-async-test" + round;
            AsyncRunner runner = new AsyncRunner(name);
            CountDownLatch ran = new CountDownLatch(AsyncRunner.THREADS);
            for (int i = 0; i < AsyncRunner.THREADS; i++) {
                runner.execute(ran::countDown);
            }
            assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
            runner.close();
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (thread.getName().startsWith(name + "-") && thread.isAlive()) {
                    alive.add("round " + round + ": " + thread.getName());
                }
            }
        }
        assertThat(alive).isEmpty();
    }
}
