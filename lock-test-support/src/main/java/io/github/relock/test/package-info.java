/**
 * JUnit 5 fixtures that run real {@code redis-server} processes (standalone, Sentinel, Cluster) on free
 * loopback ports, with fault controls (kill, pause, restart, failover, slot migration), plus
 * {@link io.github.relock.test.ChildJvm} to run code in a second JVM.
 *
 * <p>Entry points: {@link io.github.relock.test.RedisServerExtension},
 * {@link io.github.relock.test.RedisSentinelExtension}, {@link io.github.relock.test.RedisClusterExtension}
 * for JUnit, or {@link io.github.relock.test.RedisServer}, {@link io.github.relock.test.RedisSentinelSetup},
 * {@link io.github.relock.test.RedisClusterSetup} directly.
 *
 * <p>Binary: system property {@code redis.server.binary} if set (a path, or {@code embedded}), else
 * {@code redis-server} on the PATH, else the Redis 6.2 binary shipped in
 * {@code com.github.codemonstur:embedded-redis}. Every process started
 * here is killed when the JVM exits, even when it is killed itself.
 */
@NullMarked
package io.github.relock.test;

import org.jspecify.annotations.NullMarked;
