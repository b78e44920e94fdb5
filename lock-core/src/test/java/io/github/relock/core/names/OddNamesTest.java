package io.github.relock.core.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.TwoClients;
import io.github.relock.test.RedisServerExtension;

/** Odd lock names: exclusion, fencing and clean-up on every kind, and no two names sharing a key. */
@Timeout(90)
@Tag("jdk-independent")
class OddNamesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final TwoClients clients = TwoClients.onTheSharedFactory(redis);

    static List<String> names() {
        List<String> names = new ArrayList<>(List.of("{", "}", "{}", "}{", "a}", "a%7D", "a%", "a%25", "%7D", "{a}:b",
                "x:fence", "x:fair", "x:rw", "x", "ü:日本語:🔒", "a b\tc\nd", "\u0000nul", "*", "?[]", "\\", "\"'"));
        names.add("n".repeat(1024));
        names.add("🔒".repeat(512)); // 1,024 chars, 2,048 UTF-16 units... 512 code points, 2,048 bytes
        names.add("}".repeat(1024)); // escaped: 3,072 chars of hash tag
        return names;
    }

    static String tag(String key) {
        int open = key.indexOf('{');
        int close = key.indexOf('}', open + 1);
        return key.substring(open + 1, close);
    }

    @Test
    void everyNameExcludesFencesAndCleansUp() throws Exception {
        for (String name : names()) {
            for (int kind = 0; kind < 2; kind++) {
                ReentrantDistributedLock mine = kind == 0 ? clients.first().getLock(name)
                        : clients.first().getFairLock(name);
                ReentrantDistributedLock theirs = kind == 0 ? clients.second().getLock(name)
                        : clients.second().getFairLock(name);
                assertThat(mine.tryLock()).as("%s", name).isTrue();
                long first = mine.fencingToken();
                assertThat(theirs.tryLock()).as("%s", name).isFalse();
                assertThat(tag(mine.getKey())).as("tag of %s", name).isNotEmpty();
                mine.unlock();
                assertThat(theirs.tryLock(2, TimeUnit.SECONDS)).as("%s", name).isTrue();
                assertThat(theirs.fencingToken()).isGreaterThan(first);
                theirs.unlock();
                assertThat(redis.commands().exists(mine.getKey())).as("hash of %s left", name).isZero();
            }
            ReadWriteDistributedLock rw = clients.first().getReadWriteLock(name);
            ReadWriteDistributedLock rw2 = clients.second().getReadWriteLock(name);
            assertThat(rw.writeLock().tryLock()).isTrue();
            assertThat(rw2.readLock().tryLock()).isFalse();
            rw.writeLock().unlock();
            assertThat(rw2.readLock().tryLock(2, TimeUnit.SECONDS)).isTrue();
            rw2.readLock().unlock();
        }
    }

    @Test
    void namesThatLookAlikeAreDifferentLocks() throws Exception {
        List<String> names = names();
        // every name held at once, every other one fair, then the other way round: none may block another (a
        // plain and a fair lock of the same name refuse each other instead, see LockKindMismatchTest)
        for (int round = 0; round < 2; round++) {
            List<ReentrantDistributedLock> held = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                RedisLockClient client = i % 2 == 0 ? clients.first() : clients.second();
                boolean fair = (i + round) % 2 == 0;
                ReentrantDistributedLock lock = fair ? client.getFairLock(names.get(i)) : client.getLock(names.get(i));
                assertThat(lock.tryLock()).as("%s %s (%s)", fair ? "fair" : "exclusive", names.get(i), lock.getKey())
                        .isTrue();
                held.add(lock);
            }
            for (ReentrantDistributedLock lock : held) {
                lock.unlock();
            }
        }
        List<String> keys = redis.commands().keys("*");
        assertThat(keys).noneMatch(k -> !k.endsWith(":fence") && !k.endsWith(":ended"));
    }

    @Test
    void everyKeyOfALockSitsInOneHashTag() {
        for (String name : names()) {
            String key = clients.first().getLock(name).getKey();
            var keys = clients.first().redisKeys(name);
            assertThat(tag(keys.fence())).isEqualTo(tag(key));
            assertThat(tag(keys.releaseChannel())).isEqualTo(tag(key));
            assertThat(tag(clients.first().getFairLock(name).getKey())).isEqualTo(tag(key));
        }
    }
}
