package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import io.github.relock.core.UnsupportedRedisDriverException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * An application whose Spring Data Redis runs on Jedis does not start: the failure analysis names the
 * Jedis factory and says how to switch to Lettuce. Nothing waits for the first lock to hang.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class JedisDriverTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void jedisChosenByPropertyStopsStartupWithAnAnalysis() {
        RelockContexts.on(redis).withPropertyValues("spring.data.redis.client-type=jedis").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(UnsupportedRedisDriverException.class);
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains(JedisConnectionFactory.class.getName(), "needs the Lettuce driver");
            assertThat(analysis.getAction()).contains("spring.data.redis.client-type=lettuce", "redis.clients:jedis")
                    .doesNotContain("Add io.lettuce:lettuce-core");
        });
    }

    /** Lettuce hidden from the application's class loader: Boot's Redis auto-configuration picks Jedis by itself. */
    @Test
    void anApplicationWithoutLettuceStopsStartupWithAnAnalysis() {
        RelockContexts.on(redis).withClassLoader(new FilteredClassLoader("io.lettuce.")).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains(JedisConnectionFactory.class.getName());
            assertThat(analysis.getAction()).contains("spring.data.redis.client-type=lettuce");
        });
    }

    @Test
    void lettuceStaysTheDefaultWithJedisOnTheClassPath() {
        RelockContexts.on(redis).run(context -> assertThat(context).hasNotFailed());
    }

    /** The real startup path: SpringApplication finds the analyzer through spring.factories and prints it. */
    @Test
    void springApplicationPrintsTheAnalysisInsteadOfAStackTrace(CapturedOutput output) {
        SpringApplication application = new SpringApplication(JedisApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--spring.data.redis.client-type=jedis",
                "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port()))
                .hasRootCauseInstanceOf(UnsupportedRedisDriverException.class);
        assertThat(output).contains("APPLICATION FAILED TO START", "needs the Lettuce driver",
                "Switch Spring Data Redis to Lettuce: set spring.data.redis.client-type=lettuce");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DataRedisAutoConfiguration.class, AopAutoConfiguration.class, RelockAutoConfiguration.class})
    static class JedisApplication {
    }
}
