package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.testing.VirtualThreads;
import io.github.relock.test.RedisServerExtension;

/**
 * The blocking API on virtual threads (JDK 21+): many of them wait for one lock without pinning their
 * carrier, as JFR's {@code jdk.VirtualThreadPinned} event would show. Skipped on JDK 17, where virtual
 * threads do not exist; {@code .ci/run} runs it on JDK 25.
 */
@Timeout(60)
@EnabledForJreRange(minVersion = 21)
class VirtualThreadTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    @Test
    void twoHundredVirtualThreadsWaitForOneLockWithoutPinningACarrier() throws Exception {
        RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build();
        clients.add(client);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        contend(client, 20, inside, overlaps); // loads the classes: a virtual thread loading a class may pin
        List<String> pinnedInRelock = pinnedFramesWhile(() -> contend(client, 200, inside, overlaps),
                "io.github.relock.core");
        assertThat(overlaps.get()).isZero();
        assertThat(pinnedInRelock).as("pinned stacks through relock").isEmpty();
    }

    private static void contend(RedisLockClient client, int count, AtomicInteger inside, AtomicInteger overlaps)
            throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            threads.add(VirtualThreads.start(() -> {
                ReentrantDistributedLock lock = client.getLock("virtual");
                lock.lock();
                try {
                    if (inside.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    inside.decrementAndGet();
                }
                finally {
                    lock.unlock();
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    /** The control: a wait that does pin (parking inside a class initializer) is seen by the same check. */
    @Test
    void theCheckSeesAPinnedWait() throws Exception {
        List<String> pinned = pinnedFramesWhile(() -> VirtualThreads.start(() -> PinsWhileInitialising.touch()).join(),
                VirtualThreadTest.class.getName());
        assertThat(pinned).isNotEmpty();
    }

    static final class PinsWhileInitialising {

        static {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }

        static void touch() {
        }
    }

    /** Runs {@code work} and returns the top frames of pinned waits whose stack passes through {@code pkg}. */
    private static List<String> pinnedFramesWhile(VirtualThreads.Work work, String pkg) throws Exception {
        List<String> pinned = new CopyOnWriteArrayList<>();
        try (RecordingStream recording = new RecordingStream()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.onEvent("jdk.VirtualThreadPinned", event -> {
                if (passesThrough(event, pkg)) {
                    pinned.add(event.getStackTrace().getFrames().stream().limit(12)
                            .map(frame -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName())
                            .toList().toString());
                }
            });
            recording.startAsync();
            work.run();
            Thread.sleep(500);
            // stop() (JDK 20+) hands every event recorded so far to the handler before it returns
            RecordingStream.class.getMethod("stop").invoke(recording);
        }
        return pinned;
    }

    private static boolean passesThrough(RecordedEvent event, String pkg) {
        if (event.getStackTrace() == null) {
            return false;
        }
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            if (frame.getMethod().getType().getName().startsWith(pkg)) {
                return true;
            }
        }
        return false;
    }
}
