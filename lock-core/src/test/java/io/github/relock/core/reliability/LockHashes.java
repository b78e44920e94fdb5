package io.github.relock.core.reliability;

import java.util.List;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * The lock hashes in Redis whose names start with a prefix. A lock's fencing counter outlives its hash by
 * design (it is kept for the fencing-token retention), so it is not a lock left behind.
 */
final class LockHashes {

    private LockHashes() {
    }

    static List<String> named(RedisCommands<String, String> commands, String namePrefix) {
        return commands.keys("lock:{" + namePrefix + "*").stream().filter(key -> !key.endsWith(":fence")).toList();
    }
}
