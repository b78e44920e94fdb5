package io.github.relock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A lock holder in its own JVM, so tests can SIGKILL or SIGSTOP a real holder, watchdog and all.
 * Args: redis port, lock name, "lease" or "watchdog", lease/watchdog timeout in ms. Prints
 * {@code HELD <token>} once it holds the lock, then holds it until killed.
 */
public final class LockHolderProcess {

    public static void main(String[] args) throws Exception {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
        factory.afterPropertiesSet();
        factory.start();
        long millis = Long.parseLong(args[3]);
        RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofMillis(millis))
                .lockLostListener(event -> System.out.println("LOST " + event.fencingToken())).build();
        ReentrantDistributedLock lock = client.getLock(args[1]);
        boolean held = args[2].equals("lease") ? lock.tryLock(30, millis, TimeUnit.MILLISECONDS)
                : lock.tryLock(30, TimeUnit.SECONDS);
        if (!held) {
            System.out.println("NOT-ACQUIRED");
            System.exit(2);
        }
        System.out.println("HELD " + lock.fencingToken());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
