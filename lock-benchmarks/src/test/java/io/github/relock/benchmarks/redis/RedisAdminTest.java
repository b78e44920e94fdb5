package io.github.relock.benchmarks.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which CLIENT LIST lines count as connections in pub/sub mode. */
class RedisAdminTest {

    @Test
    void aConnectionWithASubscriptionOrThePubSubFlagIsPubSub() {
        assertTrue(RedisAdmin.isPubSub("id=7 addr=127.0.0.1:5000 flags=P db=0 sub=3 psub=0 ssub=0 cmd=subscribe"));
        assertTrue(RedisAdmin.isPubSub("id=8 addr=127.0.0.1:5001 flags=N db=0 sub=0 psub=1 cmd=psubscribe"));
        assertTrue(RedisAdmin.isPubSub("id=9 addr=127.0.0.1:5002 flags=P db=0 sub=0 psub=0 cmd=unsubscribe"));
        assertFalse(RedisAdmin.isPubSub("id=10 addr=127.0.0.1:5003 flags=N db=0 sub=0 psub=0 ssub=0 cmd=evalsha"));
    }
}
