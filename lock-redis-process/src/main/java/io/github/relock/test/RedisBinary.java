package io.github.relock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} executable: system property {@value #PROPERTY} (explicit path, or
 * {@code embedded} to force the jar's binary), else
 * {@code redis-server} on the PATH, else the binary inside the embedded-redis jar, extracted once per JVM.
 */
final class RedisBinary {

    static final String PROPERTY = "redis.server.binary";

    /** Value of {@value #PROPERTY} that skips the PATH and uses the binary inside the embedded-redis jar. */
    static final String EMBEDDED = "embedded";

    private static @Nullable Path resolved;
    private static String origin = "";

    private RedisBinary() {
    }

    /** The executable to run; resolved once per JVM. */
    static synchronized Path path() {
        if (resolved == null) {
            resolved = resolve();
        }
        return resolved;
    }

    /** Where {@link #path()} came from, for error messages. */
    static synchronized String describe() {
        Path path = path();
        return path + " (" + origin + ")";
    }

    private static Path resolve() {
        String explicit = System.getProperty(PROPERTY);
        if (EMBEDDED.equalsIgnoreCase(String.valueOf(explicit).trim())) {
            origin = "embedded-redis jar, forced by -D" + PROPERTY + "=" + EMBEDDED;
            return extractEmbedded();
        }
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit.trim());
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException("-D" + PROPERTY + "=" + explicit + " is not an executable file");
            }
            origin = "-D" + PROPERTY;
            return path;
        }
        Path onPath = findOnPath("redis-server");
        if (onPath != null) {
            origin = "PATH";
            return onPath;
        }
        origin = "embedded-redis jar";
        return extractEmbedded();
    }

    private static @Nullable Path findOnPath(String name) {
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return null;
        }
        for (String dir : pathVariable.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static Path extractEmbedded() {
        String resource = embeddedResourceName();
        try (InputStream in = RedisBinary.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("no redis-server found: not on the PATH, no -D" + PROPERTY
                        + ", and resource /" + resource + " is missing (is com.github.codemonstur:embedded-redis"
                        + " on the classpath?)");
            }
            // in a registry temp dir: deleted at exit, or by a later JVM if this one gets SIGKILLed
            Path file = ProcessRegistry.createTempDir("relock-bin-").resolve(resource);
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            if (!file.toFile().setExecutable(true, true)) {
                throw new IllegalStateException("cannot make " + file + " executable");
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the embedded redis-server " + resource, e);
        }
    }

    private static String embeddedResourceName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean arm = arch.equals("aarch64") || arch.equals("arm64");
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        if (os.contains("linux") && x64) {
            return "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("linux") && arm) {
            return "redis-server-6.2.7-linux-arm64";
        }
        if (os.contains("mac") && x64) {
            return "redis-server-6.2.6-v5-darwin-amd64";
        }
        if (os.contains("mac") && arm) {
            return "redis-server-6.2.6-v5-darwin-arm64";
        }
        throw new IllegalStateException("no embedded redis-server for " + os + "/" + arch
                + "; install redis-server on the PATH or set -D" + PROPERTY + "=/path/to/redis-server");
    }
}
