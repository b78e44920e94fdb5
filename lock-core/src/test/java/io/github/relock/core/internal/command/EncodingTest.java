package io.github.relock.core.internal.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import io.github.relock.core.internal.hold.OwnerIds;
import io.github.relock.core.internal.kind.FairKind;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.ReadWriteSide;

/** What the hot path caches must send exactly what encoding per call sent. */
class EncodingTest {

    @Test
    void keysAreEncodedAsUtf8() {
        LockKeys keys = LockKeys.of("lock:", "bestellung:größe");
        assertThat(new String(keys.lockBytes(), StandardCharsets.UTF_8)).isEqualTo(keys.lock());
        assertThat(new String(keys.fenceBytes(), StandardCharsets.UTF_8)).isEqualTo(keys.fence());
        assertThat(new String(keys.channelBytes(), StandardCharsets.UTF_8)).isEqualTo(keys.channel());
        assertThat(keys).isEqualTo(LockKeys.of("lock:", "bestellung:größe")).isNotEqualTo(LockKeys.of("lock:", "x"));
    }

    // LockKeys makes the documented key format, so this test spells it out (as RedisLayoutTest does for the API)
    @Test
    void bracesAndPercentInANameAreEscapedInsideTheHashTag() {
        assertThat(LockKeys.of("lock:", "}evil").lock()).isEqualTo("lock:{%7Devil}");
        assertThat(LockKeys.of("lock:", "%7Devil").lock()).isEqualTo("lock:{%257Devil}");
        assertThat(LockKeys.of("lock:", "{a}").lock()).isEqualTo("lock:{{a%7D}");
        assertThat(LockKeys.of("lock:", "order:42").lock()).as("ordinary names unchanged").isEqualTo("lock:{order:42}");
        for (String name : new String[] {"}", "{}", "a}b{c", "%", "}}"}) {
            LockKeys keys = LockKeys.of("lock:", name);
            int slot = ClusterSlotHashUtil.calculateSlot(keys.lock());
            assertThat(ClusterSlotHashUtil.calculateSlot(keys.fence())).as(name).isEqualTo(slot);
            assertThat(ClusterSlotHashUtil.calculateSlot(keys.channel())).as(name).isEqualTo(slot);
            assertThat(keys.name()).isEqualTo(name);
        }
    }

    // holds keep only the encoded lock key, so the name and the companion keys are read back from it
    @Test
    void theNameAndCompanionKeysComeBackFromTheLockKey() {
        for (String name : new String[] {"order:42", "}", "%7D", "%25}%", "{a}", "größe:ß", "emoji \uD83D\uDE00",
                "lone \uD800 surrogate"}) {
            for (String prefix : new String[] {"lock:", "", "{p}:", "präfix}"}) {
                LockKeys keys = LockKeys.of(prefix, name);
                assertThat(keys.name()).as(prefix + name).isEqualTo(name);
                assertThat(keys.fence()).isEqualTo(keys.lock() + ":fence");
                assertThat(keys.channel()).isEqualTo(keys.lock() + ":released");
            }
        }
        LockKeys[] sides = ReadWriteSide.keys("lock:", "doc}7");
        assertThat(sides[0].lock()).isEqualTo("lock:{doc%7D7}:rw").isEqualTo(sides[1].lock());
        assertThat(sides[0].fence()).isEqualTo("lock:{doc%7D7}:rw:fence");
        assertThat(sides[0].channel()).isEqualTo("lock:{doc%7D7}:rw:released:readers");
        assertThat(sides[1].channel()).isEqualTo("lock:{doc%7D7}:rw:released");
        assertThat(sides[0].name()).isEqualTo("doc}7").isEqualTo(sides[1].name());
        assertThat(sides[0]).isNotEqualTo(sides[1]);
        LockKeys fair = FairKind.keys("lock:", "report:daily");
        assertThat(fair.lock()).isEqualTo("lock:{report:daily}:fair");
        assertThat(fair.fence()).isEqualTo("lock:{report:daily}:fair:fence");
        assertThat(fair.channel()).isEqualTo("lock:{report:daily}:fair:released");
        assertThat(fair.name()).isEqualTo("report:daily");
    }

    @Test
    void numbersAreTheirDecimalForm() {
        for (long value : new long[] {0, 1, 9, 10, 255, 256, 1000, 30_000, -1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertThat(new String(Encoding.bytes(value), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(value));
        }
    }

    // OwnerIds makes the documented owner id (client id, ':', thread id), so this test spells it out
    @Test
    void aThreadKeepsOneOwnerIdAndThreadsDiffer() throws InterruptedException {
        OwnerIds owners = new OwnerIds("client");
        OwnerIds.Owner mine = owners.currentThread();
        assertThat(mine.id()).isEqualTo("client:" + Thread.currentThread().getId());
        assertThat(owners.currentThread()).isSameAs(mine);
        assertThat(new String(mine.bytes(), StandardCharsets.UTF_8)).isEqualTo(mine.id());

        AtomicReference<String> other = new AtomicReference<>();
        Thread thread = new Thread(() -> other.set(owners.currentThread().id()));
        thread.start();
        thread.join();
        assertThat(other.get()).isEqualTo("client:" + thread.getId()).isNotEqualTo(mine.id());
        assertThat(new OwnerIds("another").currentThread().id()).isEqualTo("another:" + Thread.currentThread().getId());
    }
}
