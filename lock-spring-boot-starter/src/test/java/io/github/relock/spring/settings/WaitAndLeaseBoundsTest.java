package io.github.relock.spring.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.HeldLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.test.RedisServerExtension;

/**
 * Wait and lease values at and past their edges, given in the annotation or through a placeholder: a bad one
 * stops startup naming the attribute and what to write; extreme good ones work.
 */
@Timeout(60)
@Tag("jdk-independent")
class WaitAndLeaseBoundsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @Test
    @Timeout(20)
    void leasesOfZeroNegativeOrOverAYearStopStartup() {
        fails(runner.withBean("culprit", ZeroLease.class), "leaseTime '0s'", "10s");
        fails(runner.withBean("culprit", PlaceholderLease.class).withPropertyValues("jobs.lease=-3s"),
                "leaseTime '${jobs.lease}'", "10s");
        fails(runner.withBean("culprit", HugeLease.class), "leaseTime '400d'", "10s");
        fails(runner.withBean("culprit", PlaceholderWait.class).withPropertyValues("jobs.wait=-1ms"),
                "waitTime '${jobs.wait}'", "0s");
    }

    @Test
    @Timeout(20)
    void theLongestWaitAndLeaseWork() {
        runner.withBean(Extreme.class).run(context -> {
            assertThat(context).hasNotFailed();
            HeldLock held = context.getBean(Extreme.class).held();
            assertThat(held.watchdog()).isFalse();
            assertThat(Duration.between(held.acquiredAt(), held.leaseExpiresAt())).isGreaterThan(Duration.ofDays(364));
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
            assertThat(redis.commands().exists(held.key())).isZero();
        });
    }

    private static void fails(ApplicationContextRunner culprit, String description, String action) {
        culprit.run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
            assertThat(analysis.getDescription()).contains("bean 'culprit'", description);
            assertThat(analysis.getAction()).contains(action);
        });
    }

    public static class ZeroLease {
        @DistributedLock(name = "job", leaseTime = "0s")
        public void run() {
        }
    }

    public static class PlaceholderLease {
        @DistributedLock(name = "job", leaseTime = "${jobs.lease}")
        public void run() {
        }
    }

    public static class HugeLease {
        @DistributedLock(name = "job", leaseTime = "400d")
        public void run() {
        }
    }

    public static class PlaceholderWait {
        @DistributedLock(name = "job", waitTime = "${jobs.wait}")
        public void run() {
        }
    }

    public static class Extreme {

        private final RedisLockClient client;

        public Extreme(RedisLockClient client) {
            this.client = client;
        }

        @DistributedLock(name = "job", key = "'extreme'", waitTime = "106751991167300d", leaseTime = "365d")
        public HeldLock held() {
            HeldLock held = client.heldLocks().get(0);
            assertThat(redis.commands().pttl(held.key())).isGreaterThan(TimeUnit.DAYS.toMillis(364));
            return held;
        }
    }
}
