package io.github.relock.benchmarks.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** The machine and the versions a run used, for the report header. */
public final class Environment {

    private final Properties pinned = load("/io/github/relock/benchmarks/versions.properties");

    /** A version fixed at build time (relock, redisson, spring-integration, hdrhistogram). */
    public String pinned(String name) {
        return pinned.getProperty(name, "?");
    }

    /** The version in a Maven-built jar's {@code pom.properties}, or "?". */
    public static String mavenVersion(String groupId, String artifactId) {
        return load("/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties").getProperty("version", "?");
    }

    public Map<String, String> libraries() {
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("relock", pinned("relock"));
        versions.put("Redisson", pinned("redisson"));
        versions.put("Spring Integration (RedisLockRegistry)", pinned("spring-integration"));
        versions.put("Spring Data Redis", mavenVersion("org.springframework.data", "spring-data-redis"));
        versions.put("Lettuce", mavenVersion("io.lettuce", "lettuce-core"));
        versions.put("Netty", nettyVersion());
        versions.put("HdrHistogram", pinned("hdrhistogram"));
        return versions;
    }

    public String machine() {
        return Runtime.getRuntime().availableProcessors() + " cores" + cpuModel() + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + ", " + memory();
    }

    public String jdk() {
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vm.vendor") + ")";
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return " (" + line.substring(line.indexOf(':') + 1).trim() + ")";
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // not Linux: the core count is enough
        }
        return "";
    }

    private static String memory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("\\D", ""));
                    return Math.round(kb / 1024.0 / 1024.0) + " GB RAM";
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // not Linux
        }
        return "max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB";
    }

    private static String nettyVersion() {
        try {
            return io.netty.util.Version.identify().values().stream().findFirst()
                    .map(io.netty.util.Version::artifactVersion).orElse("?");
        }
        catch (RuntimeException | LinkageError ex) {
            return "?";
        }
    }

    private static Properties load(String resource) {
        Properties properties = new Properties();
        try (InputStream in = Environment.class.getResourceAsStream(resource)) {
            if (in != null) {
                properties.load(in);
            }
        }
        catch (IOException ex) {
            // leave it empty: the header then says "?"
        }
        return properties;
    }
}
