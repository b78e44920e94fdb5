package io.github.relock.core.internal.kind;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.command.Encoding;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.test.RedisServerExtension;

/** The read-write lock's scripts, sent twice as a lost reply makes them be: each takes effect once. */
class ReadWriteReplayTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static final LockKeys[] SIDES = ReadWriteSide.keys("lock:", "replay");
    static final LockKeys READ = SIDES[0];
    static final LockKeys WRITE = SIDES[1];
    LockCommands commands;

    @BeforeEach
    void setUp() {
        commands = new LockCommands(redis.connectionFactory());
    }

    @Test
    void aReplayedReleaseNeverDecrementsTwice() {
        Hold hold = read("c:1", 10_000);
        READ.kind().acquire(commands, READ, Encoding.bytes("c:1"), 10_000, 1, -1, false, 0).join();
        assertThat(release(hold, 2)).isEqualTo(1);
        assertThat(release(hold, 2)).as("same request again").isEqualTo(1);
        assertThat(redis.commands().hget(READ.lock(), "c:1")).isEqualTo("1");
        assertThat(release(hold, 1)).isZero();
        assertThat(release(hold, 1)).as("the last release again").isZero();
        assertThat(redis.commands().exists(READ.lock())).isZero();
    }

    @Test
    void aRetriedLastReleaseIsRecognisedAfterOthersCameAndWent() {
        Hold writer = write("c:1", 10_000);
        assertThat(release(writer, 1)).isZero(); // the reply that got lost
        Hold reader = read("d:1", 10_000);
        assertThat(release(writer, 1)).as("retry while a reader holds it").isZero();
        assertThat(release(reader, 1)).isZero();
        assertThat(release(writer, 1)).as("and once it is free again").isZero();
    }

    @Test
    void aRetriedReleaseOfAnExpiredReadHoldReportsTheLoss() throws Exception {
        Hold crashed = read("c:1", 50);
        Hold alive = read("d:1", 10_000);
        Thread.sleep(120);
        assertThat(release(crashed, 1)).as("its own lease ended, though the lock lives on").isEqualTo(-1);
        assertThat(release(alive, 1)).isZero();
    }

    @Test
    void aReEntryOfAReadHoldWhoseOwnLeaseEndedReportsTheLoss() throws Exception {
        read("c:1", 50);
        Hold alive = read("d:1", 10_000);
        Thread.sleep(120); // nothing reads the whole hash meanwhile: only the lease says the hold is over
        AcquireReply again = READ.kind().acquire(commands, READ, Encoding.bytes("c:1"), 10_000, 1, -1, false, 0).join();
        assertThat(again.holdGone()).as("re-entry of the ended hold").isTrue();
        assertThat(redis.commands().hexists(READ.lock(), "c:1")).isFalse();
        assertThat(release(alive, 1)).isZero();
    }

    @Test
    void aStaleReleaseCannotEndTheSameOwnersNextHold() {
        Hold old = read("c:1", 10_000);
        assertThat(release(old, 1)).isZero();
        Hold next = read("c:1", 10_000);
        assertThat(release(old, 1)).as("replay of the old release").isZero();
        assertThat(READ.kind().holdCount(commands, READ, "c:1")).isOne();
        assertThat(release(next, 1)).isZero();
    }

    @Test
    void aReplayedFirstAcquisitionIsOneHold() {
        read("c:1", 10_000);
        Hold replay = read("c:1", 10_000);
        assertThat(redis.commands().hget(READ.lock(), "c:1")).isEqualTo("1");
        assertThat(release(replay, 1)).isZero();
        assertThat(redis.commands().exists(READ.lock())).as("nothing left").isZero();
    }

    /**
     * A waiter takes the hold a release gave it from the release's announcement, with no script, so Redis keeps that
     * hold marked as given. If its client later loses track of it (a renewal's reply came too late: the client
     * reported the hold lost while Redis kept it), the owner's next acquisition must be a new hold with a greater
     * token, not the given hold taken up again with the token it already had.
     */
    @Test
    void aNewAcquisitionOverAGivenHoldItsOwnerLostTrackOfGetsAGreaterToken() {
        Hold writer = write("a:1", 10_000);
        AcquireReply busy = WRITE.kind().acquire(commands, WRITE, Encoding.bytes("b:1:w"), 10_000, 0, -1, true, 0).join();
        assertThat(busy.acquired()).as("b waits").isFalse();
        assertThat(release(writer, 1)).isZero(); // gives b its hold; b takes it up from the announcement alone
        long given = Long.parseLong(redis.commands().hget(WRITE.lock(), "b:1:w:t"));
        assertThat(given).isGreaterThan(busy.tokenFloor());

        // a new wait's first attempt: no attempt of it found the lock busy yet
        AcquireReply again = WRITE.kind().acquire(commands, WRITE, Encoding.bytes("b:1:w"), 10_000, 0, -1, true, 0).join();
        assertThat(again.acquired()).isTrue();
        assertThat(again.value()).as("the token of b's new hold").isGreaterThan(given);
        assertThat(redis.commands().hget(WRITE.lock(), "b:1:w")).isEqualTo("1");
        assertThat(redis.commands().hexists(WRITE.lock(), "b:1:w:g")).as("no longer marked given").isFalse();
    }

    /** The attempt after the one that found the lock busy takes up the hold a release gave meanwhile, token and all. */
    @Test
    void theNextAttemptOfAWaitTakesUpTheHoldAReleaseGaveIt() {
        Hold writer = write("a:1", 10_000);
        AcquireReply busy = WRITE.kind().acquire(commands, WRITE, Encoding.bytes("b:1:w"), 10_000, 0, -1, true, 0).join();
        assertThat(release(writer, 1)).isZero();
        long given = Long.parseLong(redis.commands().hget(WRITE.lock(), "b:1:w:t"));

        AcquireReply takenUp = WRITE.kind().acquire(commands, WRITE, Encoding.bytes("b:1:w"), 10_000, 0, -1, true,
                busy.tokenFloor()).join();
        assertThat(takenUp.acquired()).isTrue();
        assertThat(takenUp.value()).as("the given hold's token").isEqualTo(given);
        assertThat(redis.commands().hexists(WRITE.lock(), "b:1:w:g")).isFalse();
    }

    private Hold read(String owner, long leaseMillis) {
        return take(READ, owner, owner, leaseMillis);
    }

    private Hold write(String owner, long leaseMillis) {
        return take(WRITE, owner, owner + ":w", leaseMillis);
    }

    private Hold take(LockKeys keys, String owner, String field, long leaseMillis) {
        AcquireReply reply = keys.kind().acquire(commands, keys, Encoding.bytes(field), leaseMillis, 0, -1, false, 0).join();
        assertThat(reply.acquired()).as(owner + " acquires").isTrue();
        return new Hold(keys, field, null, reply.value(), false, 1, leaseMillis, System.nanoTime());
    }

    private long release(Hold hold, int before) {
        return hold.keys().kind().release(commands, hold.keys(), hold.ownerBytes(), hold.tokenBytes(), before).join();
    }
}
