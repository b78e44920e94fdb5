package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/** Invalid relock.* values stop startup, and the failure analysis says which property and what to change. */
@Timeout(60)
class RelockPropertiesValidationTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            relock.wait-time=-1s                | relock.wait-time          | cannot be negative
            relock.lease-time=0s                | relock.lease-time         | between 1ms and 365 days
            relock.watchdog-timeout=0s          | relock.watchdog-timeout   | between 100ms and 1d
            relock.watchdog-timeout=2d          | relock.watchdog-timeout   | between 100ms and 1d
            relock.key-prefix=                  | relock.key-prefix         | must not be blank
            relock.key-prefix=app{x}:           | relock.key-prefix         | must not be blank, and must not contain braces
            relock.client-id=a:b                | relock.client-id          | must not be blank or contain ':'
            relock.min-replicas=-1              | relock.min-replicas       | cannot be negative
            relock.replica-ack-timeout=10s      | relock.replica-ack-timeout | shorter than a third of relock.watchdog-timeout
            relock.locks.payments.wait-time=-5s | relock.locks.payments.wait-time | cannot be negative
            relock.locks.payments.lease-time=-1s | relock.locks.payments.lease-time | between 1ms and 365 days
            """)
    void invalidValueStopsStartupWithAnAnalysisThatNamesTheProperty(String property, String name, String problem) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains(name).contains(problem);
            assertThat(analysis.getAction()).startsWith("Set " + name);
        });
    }

    /** Known only once the factory is: checked as the client is built, with the same kind of analysis. */
    @Test
    void aReplicaAckTimeoutNotShorterThanTheRedisCommandTimeoutStopsStartup() {
        runner.withPropertyValues("relock.min-replicas=1", "relock.replica-ack-timeout=1900ms",
                "spring.data.redis.timeout=2s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("relock.replica-ack-timeout")
                            .contains("at least 200ms shorter than the Redis command timeout (PT2S)");
                    assertThat(analysis.getAction()).startsWith("Set relock.replica-ack-timeout to at most PT1.8S")
                            .contains("spring.data.redis.timeout");
                });
        runner.withPropertyValues("relock.min-replicas=1", "spring.data.redis.timeout=500ms") // the default, 1s
                .run(context -> assertThat(context).hasFailed());
        runner.withPropertyValues("relock.min-replicas=1", "spring.data.redis.timeout=1100ms") // 1s: 100 ms short
                .run(context -> assertThat(context).hasFailed());
        runner.withPropertyValues("relock.min-replicas=1", "relock.replica-ack-timeout=1s", "spring.data.redis.timeout=3s")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("relock.min-replicas=1", "spring.data.redis.timeout=0s") // Lettuce: no timeout
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void zeroWaitTimeIsASingleAttemptAndValid() {
        runner.withPropertyValues("relock.wait-time=0s").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void theFailureAnalyzerIsRegistered() {
        // Boot's own analyzers want constructor arguments; only whether ours loads matters here
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, null, FailureHandler.handleMessage((message, failure) -> {
                }));
        assertThat(analyzers).hasAtLeastOneElementOfType(RelockFailureAnalyzer.class);
    }

    @Test
    void everyPropertyHasIdeMetadataWithItsDefault() throws Exception {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(metadata).contains("\"relock.enabled\"", "\"relock.key-prefix\"", "\"relock.wait-time\"",
                "\"relock.lease-time\"", "\"relock.watchdog-timeout\"", "\"relock.aspect-order\"", "\"relock.client-id\"",
                "\"relock.min-replicas\"", "\"relock.replica-ack-timeout\"", "\"relock.locks\"", "\"defaultValue\": \"5s\"", "\"defaultValue\": \"30s\"",
                "\"defaultValue\": 2147483547", "\"defaultValue\": \"lock:\"");
    }
}
