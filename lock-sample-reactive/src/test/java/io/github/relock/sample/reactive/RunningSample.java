package io.github.relock.sample.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;

/**
 * The sample as {@code java -jar} runs it (Netty on a free port), on the test's real redis-server: the embedded
 * Redis finds that one answering and starts nothing. Tests start it in {@code @BeforeAll} and close it in
 * {@code @AfterAll}, so the context is gone before the extension stops Redis.
 */
final class RunningSample implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final WebTestClient client;

    private RunningSample(ConfigurableApplicationContext context) {
        this.context = context;
        this.client = WebTestClient.bindToServer()
                .baseUrl("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"))
                .responseTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** Starts the application; {@code properties} ({@code name=value}) come on top of application.yml. */
    static RunningSample start(RedisServerExtension redis, String... properties) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.data.redis.host=" + redis.host(),
                "--spring.data.redis.port=" + redis.port()));
        for (String property : properties) {
            args.add("--" + property);
        }
        return new RunningSample(new SpringApplicationBuilder(ReactiveSampleApplication.class)
                .run(args.toArray(String[]::new)));
    }

    WebTestClient client() {
        return client;
    }

    RedisLockClient locks() {
        return context.getBean(RedisLockClient.class);
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
