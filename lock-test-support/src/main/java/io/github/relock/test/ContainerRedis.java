package io.github.relock.test;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Redis in a Testcontainers container. The only class that touches Testcontainers (an optional
 * dependency), so the rest of the module loads without it.
 */
final class ContainerRedis implements AutoCloseable {

    private static final int REDIS_PORT = 6379;

    private final GenericContainer<?> container;

    private ContainerRedis(GenericContainer<?> container) {
        this.container = container;
    }

    /** Starts the image, or aborts the calling test (skipped, with the reason) when no Docker engine answers. */
    static ContainerRedis start(String image) {
        DockerClientFactory docker = DockerClientFactory.instance();
        if (!docker.isDockerAvailable()) {
            Assumptions.abort("redis.image=" + image + " requested but no Docker engine answers: " + whyNoDocker(docker));
        }
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image)).withExposedPorts(REDIS_PORT);
        container.start();
        return new ContainerRedis(container);
    }

    private static String whyNoDocker(DockerClientFactory docker) {
        try {
            docker.client();
            return "Testcontainers reports it unavailable";
        } catch (RuntimeException e) {
            return String.valueOf(e.getMessage());
        }
    }

    String host() {
        return container.getHost();
    }

    int port() {
        return container.getMappedPort(REDIS_PORT);
    }

    @Override
    public void close() {
        container.stop();
    }
}
