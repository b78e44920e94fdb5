/**
 * The samples' embedded Redis, on Spring Boot: uses the Redis at {@code spring.data.redis.*} if one answers
 * there, else starts a {@code redis-server} there with {@link io.github.relock.test.RedisServer}. Spring Boot is
 * an optional dependency of this module: only applications that import {@link
 * io.github.relock.sample.redis.EmbeddedRedisConfiguration} load this package.
 */
@NullMarked
package io.github.relock.sample.redis;

import org.jspecify.annotations.NullMarked;
