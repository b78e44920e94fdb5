package io.github.relock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;

/** The Spring connection factories and the Lettuce client made for one {@link RedisServer}, closed together. */
final class ServerConnections {

    private final ServerLauncher launcher;
    private final List<LettuceConnectionFactory> created = new ArrayList<>();
    private @Nullable LettuceConnectionFactory shared;
    private LettuceSupport.@Nullable Commands commands;

    ServerConnections(ServerLauncher launcher) {
        this.launcher = launcher;
    }

    /** A new, started factory; {@link #close()} destroys it too. */
    synchronized LettuceConnectionFactory newFactory(Duration commandTimeout) {
        RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(launcher.host(), launcher.port());
        configuration.setPassword(RedisPassword.of(launcher.password()));
        LettuceConnectionFactory factory = LettuceSupport.startedFactory(configuration,
                LettuceSupport.clientConfiguration(commandTimeout).build());
        created.add(factory);
        return factory;
    }

    /** One factory with the default timeout, made on first use. */
    synchronized LettuceConnectionFactory shared() {
        if (shared == null) {
            shared = newFactory(LettuceSupport.DEFAULT_TIMEOUT);
        }
        return shared;
    }

    /** One Lettuce client with the default timeout, made on first use; it reconnects after a restart. */
    synchronized RedisCommands<String, String> commands() {
        if (commands == null) {
            RedisURI uri = LettuceSupport.uri(launcher.host(), launcher.port(), LettuceSupport.DEFAULT_TIMEOUT);
            String password = launcher.password();
            if (password != null) {
                uri.setAuthentication(password.toCharArray());
            }
            commands = new LettuceSupport.Commands(uri);
        }
        return commands.sync();
    }

    /** Destroys every factory and client made here; later calls make new ones. */
    void close() {
        List<LettuceConnectionFactory> factories;
        LettuceSupport.Commands client;
        synchronized (this) {
            factories = new ArrayList<>(created);
            created.clear();
            shared = null;
            client = commands;
            commands = null;
        }
        factories.forEach(LettuceSupport::destroyQuietly);
        if (client != null) {
            client.close();
        }
    }
}
