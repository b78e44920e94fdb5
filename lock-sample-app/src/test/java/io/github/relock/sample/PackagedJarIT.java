package io.github.relock.sample;

import static io.github.relock.sample.TestSupport.get;
import static io.github.relock.sample.TestSupport.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.jayway.jsonpath.JsonPath;

/**
 * Runs {@code target/lock-sample-app.jar} the way the README does ({@code java -jar}), as a separate
 * process on free ports, and stops it again by its own {@link Process} handle; once more on the context that
 * {@code process-aot} generated into the jar ({@code -Dspring.aot.enabled=true}).
 */
class PackagedJarIT {

    static final Path JAR = Path.of(System.getProperty("sample.jar", "target/lock-sample-app.jar"));

    static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theJarStartsServesOrdersOverHttpAndStopsItsEmbeddedRedis(@TempDir Path dir) throws Exception {
        String output = payAnOrderOverHttp(dir);
        assertThat(output).contains("Starting SampleApplication").doesNotContain("AOT-processed");
    }

    /** The context that {@code process-aot} generated at build time, instead of the one Spring derives at startup. */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theJarRunsOnItsAotGeneratedContext(@TempDir Path dir) throws Exception {
        String output = payAnOrderOverHttp(dir, "-Dspring.aot.enabled=true");
        assertThat(output).contains("Starting AOT-processed SampleApplication");
    }

    /** What a native image of the app would be built with: the hints relock's starter contributes. */
    @Test
    void theJarCarriesRelocksNativeImageHints() throws IOException {
        String metadata;
        try (ZipFile jar = new ZipFile(JAR.toFile())) {
            ZipEntry entry = jar.getEntry("META-INF/native-image/io.github.relock/lock-sample-app/reachability-metadata.json");
            assertThat(entry).as("process-aot's reachability metadata in the jar").isNotNull();
            metadata = new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> globs = JsonPath.read(metadata, "$.resources[*].glob");
        assertThat(globs).as("lock-core's Lua scripts").contains("io/github/relock/core/*.lua");
        List<String> types = JsonPath.read(metadata, "$.reflection[*].type");
        assertThat(types).contains("io.github.relock.spring.internal.LockKeyRootObject", "io.github.relock.spring.DistributedLock",
                "io.github.relock.spring.autoconfigure.RelockProperties");
        List<String> locked = JsonPath.read(metadata,
                "$.reflection[?(@.type == 'io.github.relock.sample.payments.PaymentService')].methods[*].name");
        assertThat(locked).as("the @DistributedLock methods the aspect invokes").contains("pay");
    }

    /** Starts the jar, creates and pays an order over HTTP, stops it and checks its Redis stopped; returns its log. */
    private static String payAnOrderOverHttp(Path dir, String... jvmArgs) throws Exception {
        int httpPort = TestSupport.freePort();
        int redisPort = TestSupport.freePort();
        Path log = dir.resolve("app.log");
        Process app = start(log, List.of(jvmArgs), "--server.port=" + httpPort, "--spring.data.redis.port=" + redisPort,
                "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("orders") + ";AUTO_SERVER=TRUE");
        String base = "http://127.0.0.1:" + httpPort;
        try {
            awaitReady(app, base, log);

            HttpResponse<String> created = post(base + "/orders", "{\"customer\":\"ada\",\"amount\":42.50}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            long id = ((Number) JsonPath.read(created.body(), "$.id")).longValue();
            assertThat((String) JsonPath.read(created.body(), "$.status")).isEqualTo("NEW");

            HttpResponse<String> paid = post(base + "/orders/" + id + "/pay");
            assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
            assertThat((Integer) JsonPath.read(paid.body(), "$.nestedHoldCount")).isEqualTo(2);

            HttpResponse<String> shown = get(base + "/orders/" + id);
            assertThat((String) JsonPath.read(shown.body(), "$.status")).isEqualTo("PAID");
            assertThat((List<?>) JsonPath.read(shown.body(), "$.payments")).hasSize(1);
        }
        finally {
            stop(app);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(output).contains("No Redis answered at 127.0.0.1:" + redisPort + ", so started an embedded redis-server")
                .contains("Stopped the embedded redis-server");
        assertThat(TestSupport.listening(redisPort)).as("the embedded Redis stopped with the application").isFalse();
        assertThat(TestSupport.listening(httpPort)).isFalse();
        return output;
    }

    /** Also on the AOT-generated context, which was generated for the web application. */
    @ParameterizedTest(name = "jvm args {0}")
    @ValueSource(strings = {"", "-Dspring.aot.enabled=true"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theJarsDemoPrintsItsTableAndExitsZero(String jvmArg, @TempDir Path dir) throws Exception {
        int redisPort = TestSupport.freePort();
        Path log = dir.resolve("demo.log");
        Process demo = start(log, jvmArg.isEmpty() ? List.of() : List.of(jvmArg), "--demo", "--spring.data.redis.port=" + redisPort,
                "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("orders") + ";AUTO_SERVER=TRUE");
        try {
            if (!demo.waitFor(3, TimeUnit.MINUTES)) {
                fail("--demo did not exit within 3 minutes:\n" + Files.readString(log));
            }
        }
        finally {
            stop(demo);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(demo.exitValue()).as(output).isZero();
        assertThat(output).containsPattern("payments in the database +1 +OK: exactly one");
        assertThat(output.contains("Starting AOT-processed SampleApplication")).as(output).isEqualTo(!jvmArg.isEmpty());
        assertThat(TestSupport.listening(redisPort)).isFalse();
    }

    private static Process start(Path log, List<String> jvmArgs, String... args) throws IOException {
        assertThat(JAR).as("run mvn package first").exists();
        List<String> command = new ArrayList<>(List.of(JAVA));
        command.addAll(jvmArgs);
        command.addAll(List.of("-jar", JAR.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void awaitReady(Process app, String base, Path log) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (!app.isAlive()) {
                fail("The application exited with " + app.exitValue() + " before it was ready:\n" + read(log));
            }
            try {
                if (get(base + "/actuator/health").statusCode() == 200) {
                    return;
                }
            }
            catch (UncheckedIOException ex) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        fail("The application was not ready within 3 minutes:\n" + read(log));
    }

    /** Stops the process this test started: SIGTERM (the app shuts down and stops its Redis), then SIGKILL. */
    private static void stop(Process process) throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            return "(no output: " + ex + ")";
        }
    }
}
