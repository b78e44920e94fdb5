package io.github.relock.core.internal.command;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.test.RedisServerExtension;

/**
 * A command can reach Redis twice: Lettuce re-sends what was in flight when a connection dropped, and
 * the lock retries a release whose reply was lost. Each script must take effect once.
 */
class ReplayedCommandsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static final LockKeys KEYS = LockKeys.of("lock:", "replay");
    LockCommands commands;

    @BeforeEach
    void setUp() {
        commands = new LockCommands(redis.connectionFactory());
    }

    @Test
    void aReplayedReleaseNeverDecrementsTwice() {
        AcquireReply first = commands.acquire(KEYS, "c:1", 10_000, 0).join();
        commands.acquire(KEYS, "c:1", 10_000, 1).join();
        commands.acquire(KEYS, "c:1", 10_000, 2).join();
        long token = first.value();

        assertThat(commands.release(KEYS, "c:1", token, 3).join()).isEqualTo(2);
        assertThat(commands.release(KEYS, "c:1", token, 3).join()).as("same request again").isEqualTo(2);
        assertThat(holds()).isEqualTo("2");

        assertThat(commands.release(KEYS, "c:1", token, 2).join()).isEqualTo(1);
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).isEqualTo(0);
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("the last release again").isEqualTo(0);
        assertThat(redis.commands().exists(KEYS.lock())).isZero();
    }

    @Test
    void aStaleReleaseCannotFreeTheSameOwnersNextHold() {
        long oldToken = commands.acquire(KEYS, "c:1", 10_000, 0).join().value();
        assertThat(commands.release(KEYS, "c:1", oldToken, 1).join()).isZero();
        long newToken = commands.acquire(KEYS, "c:1", 10_000, 0).join().value();
        assertThat(newToken).isGreaterThan(oldToken);

        // it did release (and says so), but must not touch the new hold
        assertThat(commands.release(KEYS, "c:1", oldToken, 1).join()).as("replay of the old release").isZero();
        assertThat(holds()).isEqualTo("1");
        assertThat(commands.release(KEYS, "c:1", newToken, 1).join()).isZero();
    }

    /**
     * The reply of a last release is lost and, before the retry, waiters of other clients take and give
     * back the lock: the retry must still recognise that its release happened.
     */
    @Test
    void aRetriedLastReleaseRecognisesItsOwnSuccessAfterOthersTookTheLock() {
        long token = commands.acquire(KEYS, "c:1", 10_000, 0).join().value();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).isZero(); // the reply that got lost
        long next = commands.acquire(KEYS, "d:1", 10_000, 0).join().value();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("retry while another owner holds it").isZero();
        assertThat(commands.release(KEYS, "d:1", next, 1).join()).isZero();
        long third = commands.acquire(KEYS, "e:1", 10_000, 0).join().value();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("retry two owners later").isZero();
        assertThat(redis.commands().hget(KEYS.lock(), "e:1")).as("the retry changed nothing").isEqualTo("1");
        commands.release(KEYS, "e:1", third, 1).join();
    }

    /**
     * Found by scenario 7's interrupt storm in CI: the reply of a last release is lost, and the next owner's
     * first acquisition is interrupted and replayed before the retry. The replay replaces a hold of its own
     * owner, not one that expired, so the retried release must still be recognised as done.
     */
    @Test
    void aRetriedLastReleaseRecognisesItsOwnSuccessAfterTheNextOwnersAcquisitionWasReplayed() {
        long token = commands.acquire(KEYS, "c:1", 10_000, 0).join().value();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).isZero(); // the reply that got lost
        commands.acquire(KEYS, "d:1", 10_000, 0).join();
        long next = commands.acquire(KEYS, "d:1", 10_000, 0).join().value(); // the same request again
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("retry after a replayed acquisition").isZero();
        assertThat(commands.release(KEYS, "d:1", next, 1).join()).isZero();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("and after its release").isZero();
    }

    /** A leftover hold the owner lost track of that then expired still ends the run of clean releases. */
    @Test
    void aReplayedAcquisitionDoesNotHideAnExpiryBeforeIt() throws Exception {
        long token = commands.acquire(KEYS, "c:1", 50, 0).join().value();
        Thread.sleep(120);
        commands.acquire(KEYS, "d:1", 10_000, 0).join();
        long next = commands.acquire(KEYS, "d:1", 10_000, 0).join().value();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("the expiry is still told").isEqualTo(-1);
        commands.release(KEYS, "d:1", next, 1).join();
    }

    /**
     * Found by the random fault schedule: the watchdog picked a hold for renewal, a re-entry then lengthened its
     * lease to 2.8 s, and the renewal that arrived after it cut the lease back to the watchdog's 1.5 s, which ran
     * out while the owner, trusting the longer lease, had paused renewing. A renewal never shortens a lease.
     */
    @Test
    void aRenewalThatArrivesAfterAReentryLengthenedTheLeaseDoesNotShortenIt() {
        AcquireReply first = commands.acquire(KEYS, "c:1", 1_500, 0).join();
        Hold hold = new Hold(KEYS, "c:1", null, first.value(), true, 1, 1_500, System.nanoTime());
        commands.acquire(KEYS, "c:1", 10_000, 1).join(); // the re-entry with a longer lease
        assertThat(commands.renew(java.util.List.of(hold), 1_500).renewed()).containsExactly(true);
        assertThat(redis.commands().pttl(KEYS.lock())).as("the re-entry's lease stands").isGreaterThan(5_000);
    }

    @Test
    void aRetriedReleaseOfAHoldThatExpiredStillReportsTheLoss() throws Exception {
        long token = commands.acquire(KEYS, "c:1", 50, 0).join().value();
        Thread.sleep(120); // expired: another owner may have worked meanwhile, which the owner must learn
        long next = commands.acquire(KEYS, "d:1", 10_000, 0).join().value();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).isEqualTo(-1);
        assertThat(commands.release(KEYS, "d:1", next, 1).join()).isZero();
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("still lost after a clean release by another").isEqualTo(-1);
    }

    @Test
    void anExpiredHoldIsNotReportedAsReleased() throws Exception {
        long token = commands.acquire(KEYS, "c:1", 50, 0).join().value();
        Thread.sleep(120);
        assertThat(commands.release(KEYS, "c:1", token, 1).join()).as("nobody took it, but the lease ran out").isEqualTo(-1);
    }

    /** A release that never reached Redis left the hold; the owner's next first acquisition is a new hold. */
    @Test
    void aHoldTheClientLostTrackOfIsTakenOverWithANewTokenAndTheLeaseAskedFor() {
        long leftover = commands.acquire(KEYS, "c:1", 100, 0).join().value();
        AcquireReply next = commands.acquire(KEYS, "c:1", 10_000, 0).join();
        assertThat(next.holds()).isOne();
        assertThat(next.value()).isGreaterThan(leftover);
        assertThat(redis.commands().pttl(KEYS.lock())).isGreaterThan(5_000);
        assertThat(commands.acquire(KEYS, "c:1", 10_000, 3).join().holdGone()).as("a re-entry it does not match").isTrue();
    }

    @Test
    void aReplayedAcquireNeverCountsTwice() {
        AcquireReply first = commands.acquire(KEYS, "c:1", 10_000, 0).join();
        AcquireReply replay = commands.acquire(KEYS, "c:1", 10_000, 0).join();
        assertThat(replay.holds()).isEqualTo(1);
        // the replay's reply is the one the client gets: the hold goes on under a newer token
        assertThat(replay.value()).as("the replay reports a newer token").isGreaterThan(first.value());
        commands.acquire(KEYS, "c:1", 10_000, 1).join();
        assertThat(commands.acquire(KEYS, "c:1", 10_000, 1).join().holds()).isEqualTo(2);
        assertThat(holds()).isEqualTo("2");
    }

    @Test
    void aNaiveDecrementWouldHaveCountedTwice() {
        // the broken variant: a release that does not compare hold counts loses a hold on replay
        commands.acquire(KEYS, "c:1", 10_000, 0).join();
        commands.acquire(KEYS, "c:1", 10_000, 1).join();
        redis.commands().hincrby(KEYS.lock(), "c:1", -1);
        redis.commands().hincrby(KEYS.lock(), "c:1", -1);
        assertThat(holds()).as("one release, sent twice, freed both holds").isEqualTo("0");
    }

    @Test
    void anotherOwnerIsBusyAndLearnsTheRemainingLease() {
        long token = commands.acquire(KEYS, "c:1", 10_000, 0).join().value();
        AcquireReply busy = commands.acquire(KEYS, "c:2", 10_000, 0).join();
        assertThat(busy.acquired()).isFalse();
        assertThat(busy.holdGone()).isFalse();
        assertThat(busy.value()).isBetween(1L, 10_000L);
        assertThat(commands.release(KEYS, "c:2", token, 1).join()).as("not the owner").isEqualTo(-1);
        assertThat(holds()).isEqualTo("1");
    }

    private String holds() {
        String value = redis.commands().hget(KEYS.lock(), "c:1");
        return value == null ? "0" : value;
    }
}
