package io.github.relock.core;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A second process configured with a given client id, for the duplicate-client-id test. Args: redis port,
 * client id, lock name. Tries the lock once on its main thread (whose thread id is the same in every JVM),
 * prints {@code HELD <owner id>} or {@code BUSY}, then holds on until killed.
 */
public final class SameClientIdProcess {

    public static void main(String[] args) throws Exception {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
        factory.afterPropertiesSet();
        factory.start();
        RedisLockClient client = RedisLockClient.builder(factory).clientId(args[1]).build();
        ReentrantDistributedLock lock = client.getLock(args[2]);
        System.out.println(lock.tryLock() ? "HELD " + client.getClientId() : "BUSY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
