package io.github.relock.test;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link RedisServer.Builder} was told, handed to the {@link ServerLauncher} as one value.
 *
 * @param port 0 for a free one
 */
record ServerSettings(String host, int port, List<String> args, @Nullable String replicaOfHost, int replicaOfPort,
        @Nullable List<String> sentinelConfig, @Nullable String password, Duration startTimeout, Duration exitGrace) {

    ServerSettings {
        args = List.copyOf(args);
    }
}
