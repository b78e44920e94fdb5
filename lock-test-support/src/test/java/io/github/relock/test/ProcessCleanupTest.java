package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A redis-server must not outlive the JVM that started it, however that JVM ends. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("jdk-independent")
class ProcessCleanupTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aNormalExitStopsTheServersViaTheShutdownHook() {
        try (ChildJvm child = ChildJvm.start(RedisHolderMain.class)) {
            long redisPid = redisPid(child);

            Path redisDir = Path.of(child.lines().get(0).split(" ", 4)[3]);

            child.send("exit");
            child.awaitExit(WAIT);

            awaitGone(redisPid);
            assertThat(redisDir).doesNotExist();
        }
    }

    @Test
    void aKilledJvmStillTakesItsServersWithIt() {
        try (ChildJvm child = ChildJvm.start(RedisHolderMain.class)) {
            long redisPid = redisPid(child);
            Path redisDir = Path.of(child.lines().get(0).split(" ", 4)[3]);

            child.kill(); // SIGKILL: no shutdown hook runs, the reaper process must do it

            awaitGone(redisPid);
            assertThat(redisDir).isDirectory(); // nobody could delete it...
            ProcessRegistry.sweepStaleTempDirs(); // ...until the next JVM that makes a temp dir
            assertThat(redisDir).doesNotExist();
        }
    }

    @Test
    void anExitGraceLetsTheApplicationStopTheServerInItsOwnShutdownHook() {
        try (ChildJvm child = ChildJvm.start(RedisHolderMain.class, "10000")) {
            long redisPid = redisPid(child);

            child.send("exit");
            child.awaitExit(WAIT);

            assertThat(child.lines()).contains("RUNNING AFTER 500 MS true");
            awaitGone(redisPid);
        }
    }

    @Test
    void withoutAnExitGraceTheServerIsKilledAtOnce() { // the check above can fail
        try (ChildJvm child = ChildJvm.start(RedisHolderMain.class, "0")) {
            redisPid(child);

            child.send("exit");
            child.awaitExit(WAIT);

            assertThat(child.lines()).contains("RUNNING AFTER 500 MS false");
        }
    }

    private static long redisPid(ChildJvm child) {
        String line = child.awaitLine(text -> text.startsWith("REDIS "), WAIT);
        long pid = Long.parseLong(line.split(" ")[1]);
        assertThat(isGone(pid)).isFalse();
        return pid;
    }

    private static void awaitGone(long pid) {
        Await.untilTrue(Duration.ofSeconds(10), "redis-server " + pid + " to be gone", () -> isGone(pid));
    }

    // An orphan killed in a container may stay a zombie if PID 1 does not reap: that counts as gone.
    private static boolean isGone(long pid) {
        if (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
            return true;
        }
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try {
            String content = Files.readString(stat);
            return content.charAt(content.lastIndexOf(')') + 2) == 'Z';
        } catch (IOException e) {
            return !Files.exists(stat);
        }
    }
}
