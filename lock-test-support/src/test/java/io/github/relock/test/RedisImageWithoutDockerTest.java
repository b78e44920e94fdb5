package io.github.relock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.opentest4j.TestAbortedException;
import org.testcontainers.DockerClientFactory;

@Tag("jdk-independent")
class RedisImageWithoutDockerTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRequestedImageIsSkippedWithTheReasonWhenNoDockerEngineAnswers() {
        Assumptions.assumeTrue(System.getenv(RedisServerExtension.REDIS_URL_ENV) == null, "REDIS_URL takes precedence");
        Assumptions.assumeFalse(DockerClientFactory.instance().isDockerAvailable(), "a Docker engine answers here");
        System.setProperty(RedisServerExtension.IMAGE_PROPERTY, "redis:7-alpine");
        EngineExecutionResults results;
        try {
            results = EngineTestKit.engine("junit-jupiter").selectors(selectClass(NeedsAContainer.class)).execute();
        } finally {
            System.clearProperty(RedisServerExtension.IMAGE_PROPERTY);
        }

        List<Throwable> aborted = results.containerEvents().aborted().stream()
                .map(event -> event.getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow())
                .toList();
        assertThat(aborted).singleElement()
                .isInstanceOf(TestAbortedException.class)
                .extracting(Throwable::getMessage).asString()
                .startsWith("redis.image=redis:7-alpine requested but no Docker engine answers: ");
        assertThat(results.testEvents().started().count()).isZero();
    }

    // Run only through EngineTestKit above (surefire skips nested classes).
    static class NeedsAContainer {

        @RegisterExtension
        static final RedisServerExtension redis = new RedisServerExtension();

        @Test
        void neverRuns() {
            throw new AssertionError("must have been skipped");
        }
    }
}
