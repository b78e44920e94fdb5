package io.github.relock.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * The futures of the asynchronous calls complete in a JVM started with
 * {@code -Djava.util.concurrent.ForkJoinPool.common.parallelism=0}, a setting the JDK documents (applications use it
 * to keep parallel streams on the caller's thread). There the common pool has no worker and runs no task handed to
 * its {@code execute} (JDK 17); {@code CompletableFuture}'s own {@code *Async} methods then start a thread per
 * task instead. A child JVM with that setting takes a free lock with {@code tryLockAsync(0)} and releases it with
 * {@code unlockAsync}: both futures must complete, and the lock must be free afterwards.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class FuturesCompleteWithAnIdleCommonPoolTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void tryLockAsyncAndUnlockAsyncCompleteInAChildJvm() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String javaBinary = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(javaBinary, "-cp", classPath,
                "-Djava.util.concurrent.ForkJoinPool.common.parallelism=0", Child.class.getName(),
                redis.host(), Integer.toString(redis.port())).redirectErrorStream(true)
                .redirectOutput(new File("target/idle-common-pool-child.log")).start();
        try {
            assertThat(child.waitFor(40, TimeUnit.SECONDS)).as("the child ended").isTrue();
            String log = new String(java.nio.file.Files.readAllBytes(Paths.get("target/idle-common-pool-child.log")),
                    StandardCharsets.UTF_8);
            assertThat(log).contains("acquired: true").contains("released").doesNotContain("NOT COMPLETED");
            assertThat(redis.commands().exists("lock:{idle-pool}")).as("the lock is free").isZero();
        }
        finally {
            child.destroyForcibly();
        }
    }

    /** Runs in the child JVM: one async acquisition and release of a free lock, each given 5 s. */
    public static final class Child {

        public static void main(String[] args) throws Exception {
            var factory = new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(args[0],
                    Integer.parseInt(args[1]));
            factory.afterPropertiesSet();
            factory.start();
            try (RedisLockClient client = RedisLockClient.builder(factory).build()) {
                LockOwner owner = client.newOwner();
                ReentrantDistributedLock lock = client.getLock("idle-pool");
                System.out.println("common pool parallelism "
                        + java.util.concurrent.ForkJoinPool.commonPool().getParallelism());
                try {
                    System.out.println("acquired: " + lock.tryLockAsync(Duration.ZERO, null, owner)
                            .get(5, TimeUnit.SECONDS));
                    lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
                    System.out.println("released");
                }
                catch (java.util.concurrent.TimeoutException ex) {
                    System.out.println("NOT COMPLETED within 5 s; held locks " + List.copyOf(client.heldLocks()));
                }
            }
            finally {
                factory.destroy();
            }
            System.exit(0);
        }
    }
}
