package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("jdk-independent")
class ChildJvmTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void runsAMainTalksOverStdinAndStdoutAndReportsTheExitCode() {
        try (ChildJvm child = ChildJvm.start(EchoMain.class, "a", "b")) {
            assertThat(child.awaitLine(line -> line.startsWith("READY"), WAIT)).isEqualTo("READY a,b");
            assertThat(child.pid()).isPositive().isNotEqualTo(ProcessHandle.current().pid());

            child.send("one");
            child.send("two");
            assertThat(child.awaitLine(line -> line.startsWith("ECHO"), WAIT)).isEqualTo("ECHO one");
            assertThat(child.awaitLine(line -> line.startsWith("ECHO"), WAIT)).isEqualTo("ECHO two");
            child.send("exit");

            assertThat(child.awaitExit(WAIT)).isEqualTo(3);
            assertThat(child.isAlive()).isFalse();
            assertThat(child.lines()).containsExactly("READY a,b", "ECHO one", "ECHO two", "BYE");
            assertThat(child.errorLines()).contains("this goes to stderr");
        }
    }

    @Test
    void pauseFreezesTheChildAndKillEndsIt() {
        try (ChildJvm child = ChildJvm.start(EchoMain.class)) {
            child.awaitLine(line -> line.startsWith("READY"), WAIT);

            child.pause();
            child.send("while paused");
            assertThatThrownBy(() -> child.awaitLine(line -> line.startsWith("ECHO"), Duration.ofMillis(300)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no matching line within 300 ms")
                    .hasMessageContaining("READY");
            child.resume();
            assertThat(child.awaitLine(line -> line.startsWith("ECHO"), WAIT)).isEqualTo("ECHO while paused");

            child.kill();

            assertThat(child.isAlive()).isFalse();
            assertThat(ProcessHandle.of(child.pid()).filter(ProcessHandle::isAlive)).isEmpty();
        }
    }

    @Test
    void awaitLineFailsFastWhenTheChildExits() {
        try (ChildJvm child = ChildJvm.start(EchoMain.class)) {
            child.awaitLine(line -> line.startsWith("READY"), WAIT);
            child.send("exit");

            long started = System.nanoTime();
            assertThatThrownBy(() -> child.awaitLine(line -> line.equals("never"), WAIT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exited")
                    .hasMessageContaining("BYE");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(WAIT);
        }
    }
}
