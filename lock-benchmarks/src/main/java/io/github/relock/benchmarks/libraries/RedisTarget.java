package io.github.relock.benchmarks.libraries;

/** Where the benchmark's redis-server listens. */
public record RedisTarget(String host, int port) {

    public String uri() {
        return "redis://" + host + ":" + port;
    }
}
