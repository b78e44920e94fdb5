package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.RedisLockClientSettings;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/** {@code relock.client-name}, its deprecated former key {@code relock.client-id}, and the IDE metadata of both. */
@Timeout(60)
class ClientNamePropertyTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @Test
    void clientNameStartsTheClientId() {
        runner.withPropertyValues("relock.client-name=node-2").run(context -> assertThat(
                context.getBean(RedisLockClient.class).getClientId()).startsWith("node-2-"));
    }

    @Test
    void theFormerClientIdKeyStillNamesTheClient() {
        runner.withPropertyValues("relock.client-id=node-3").run(context -> assertThat(
                context.getBean(RedisLockClient.class).getClientId()).startsWith("node-3-"));
    }

    @Test
    void anInvalidClientNameStopsStartupNamingTheKey() {
        runner.withPropertyValues("relock.client-name=a:b").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("relock.client-name").contains("must not be blank or contain ':'");
            assertThat(analysis.getAction()).startsWith("Set relock.client-name");
        });
    }

    @Test
    void theMetadataDeprecatesClientIdForClientName() throws Exception {
        Map<String, Object> clientId = property("relock.client-id");
        assertThat(clientId).containsKey("deprecation");
        assertThat(((Map<?, ?>) clientId.get("deprecation")).get("replacement")).isEqualTo("relock.client-name");
        assertThat(property("relock.client-name")).doesNotContainKey("deprecation");
    }

    @Test
    void theMetadataCarriesEveryDefault() throws Exception {
        Map<String, Object> expected = Map.of("relock.enabled", true, "relock.key-prefix", "lock:",
                "relock.wait-time", "5s", "relock.watchdog-timeout", "30s", "relock.aspect-order", 2147483547,
                "relock.min-replicas", 0, "relock.fencing-token-retention", "7d");
        expected.forEach((name, value) -> assertThat(plain(property(name).get("defaultValue"))).as(name)
                .isEqualTo(plain(value)));
        assertThat(new RelockProperties().getFencingTokenRetention())
                .isEqualTo(RedisLockClientSettings.DEFAULT_FENCING_TOKEN_RETENTION);
    }

    /** JSON numbers come back as doubles. */
    private static String plain(Object value) {
        return value instanceof Number number ? String.valueOf(number.longValue()) : String.valueOf(value);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> property(String name) {
        String json;
        try (InputStream in = ClientNamePropertyTest.class
                .getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
        List<Object> properties = (List<Object>) JsonParserFactory.getJsonParser().parseMap(json).get("properties");
        Map<String, Map<String, Object>> byName = properties.stream().map(p -> (Map<String, Object>) p)
                .collect(Collectors.toMap(p -> (String) p.get("name"), p -> p, (a, b) -> a));
        assertThat(byName).containsKey(name);
        return byName.get(name);
    }
}
