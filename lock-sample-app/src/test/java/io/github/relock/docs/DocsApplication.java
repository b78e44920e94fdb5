package io.github.relock.docs;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

import io.github.relock.sample.redis.EmbeddedRedisConfiguration;

/** The application the guide's snippets run in: their beans, the starter, and a redis-server of its own. */
@SpringBootApplication
@Import(EmbeddedRedisConfiguration.class)
class DocsApplication {
}
