/**
 * Real {@code redis-server} processes on loopback ports, with fault controls (kill, pause, restart), and
 * nothing of JUnit: {@link io.github.relock.test.RedisServer}. lock-test-support builds its JUnit fixtures on
 * it (same package), and the sample app starts its embedded Redis with it.
 *
 * <p>Binary: system property {@code redis.server.binary} if set (a path, or {@code embedded}), else
 * {@code redis-server} on the PATH, else the Redis 6.2 binary shipped in
 * {@code com.github.codemonstur:embedded-redis}. Every process started here is killed when the JVM exits,
 * even when it is killed itself.
 */
@NullMarked
package io.github.relock.test;

import org.jspecify.annotations.NullMarked;
