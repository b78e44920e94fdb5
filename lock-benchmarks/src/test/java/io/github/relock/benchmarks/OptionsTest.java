package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The flags that choose what one run measures: {@code all}, the S2 hold and the scale group's sizes. */
class OptionsTest {

    @Test
    void allIsTheDefaultWorkloadsAndTheScaleGroupInOneRun() {
        assertEquals(List.of("W1", "W2", "W3", "W4", "W5", "W6", "W7", "watchdog", "threads", "annotation", "scale"),
                Options.parse("--workloads=all").workloads());
        assertEquals(List.of("W2", "W1", "W3", "W4", "W5", "W6", "W7", "watchdog", "threads", "annotation", "scale"),
                Options.parse("--workloads=W2,all,scale").workloads(), "chosen order first, nothing twice");
    }

    @Test
    void theScaleGroupIsSizedByFlagsWithTheTargetsLoadsAsDefaults() {
        Options defaults = Options.defaults();
        assertEquals(Duration.ofMillis(50), defaults.s2Hold());
        assertEquals(List.of(100_000, 1_000_000), List.of(defaults.s1Locks(), defaults.s3Keys()));
        Options small = Options.parse("--s2-hold=5ms", "--s1-locks=2000", "--s3-keys=20000");
        assertEquals(Duration.ofMillis(5), small.s2Hold());
        assertEquals(List.of(2_000, 20_000), List.of(small.s1Locks(), small.s3Keys()));
    }
}
