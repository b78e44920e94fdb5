package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 8: releases by everyone but the owner. Another thread of the same client; the same thread
 * id on another client; another process (through the API and through the release script with the
 * holder's fencing token); in this process through the script with the token but another owner id,
 * and with the owner id but a stale token. Every one must throw (or be refused by the script) and leave
 * the hash and its TTL as they were: 10,000 of 10,000.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class Scenario08NonOwnerReleaseIT {

    static final int OTHER_THREAD = 3_500;
    static final int OTHER_CLIENT_SAME_THREAD_ID = 3_500;
    static final int OTHER_PROCESS = 1_000; // each way: API and script
    static final int SCRIPT_OTHER_OWNER = 500;
    static final int SCRIPT_STALE_TOKEN = 500;
    static final int TOTAL = OTHER_THREAD + OTHER_CLIENT_SAME_THREAD_ID + 2 * OTHER_PROCESS + SCRIPT_OTHER_OWNER
            + SCRIPT_STALE_TOKEN;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Releases, Releases> scenario = new ScenarioRunner<>("8", "non-owner release");

    /** Release attempts by non-owners, counted from several threads. */
    static final class Releases {
        final AtomicLong attempts = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong changed = new AtomicLong();

        /** One attempt through the API: refused if it throws. */
        void expectRefusal(Runnable release, Snapshot snapshot) {
            attempts.incrementAndGet();
            try {
                release.run();
            }
            catch (IllegalMonitorStateException expected) {
                refused.incrementAndGet();
            }
            if (!snapshot.unchanged()) {
                changed.incrementAndGet();
            }
        }

        /** One attempt through the release script: refused if it answers below zero. */
        void expectScriptRefusal(long left, Snapshot snapshot) {
            attempts.incrementAndGet();
            if (left < 0) {
                refused.incrementAndGet();
            }
            if (!snapshot.unchanged()) {
                changed.incrementAndGet();
            }
        }

        long accepted() {
            return attempts.get() - refused.get();
        }
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> {
            long violations = real.accepted() + real.changed.get();
            return new ReliabilityReport.Figures(
                    String.format(Locale.ROOT, "%,d attempts: %,d by another thread, %,d by the same thread id on "
                                    + "another client, %,d by another process (API and script with the token), %,d by "
                                    + "script with the token but another owner, %,d with the owner but a stale token",
                            real.attempts.get(), OTHER_THREAD, OTHER_CLIENT_SAME_THREAD_ID, 2 * OTHER_PROCESS,
                            SCRIPT_OTHER_OWNER, SCRIPT_STALE_TOKEN),
                    violations,
                    String.format(Locale.ROOT, "%,d/%,d refused (exception or script refusal); hash or TTL changed %d "
                            + "times", real.refused.get(), real.attempts.get(), real.changed.get()),
                    "exception thrown, hash and TTL unchanged, 10,000/10,000",
                    violations == 0 && real.attempts.get() >= 10_000,
                    String.format(Locale.ROOT, "ownership removed (shared owner) and a release script without the "
                                    + "owner check: %d of %d releases went through, %d changed the lock",
                            control.accepted(), control.attempts.get(), control.changed.get()));
        });
    }

    @Test
    @Order(1)
    void onlyTheOwnerCanRelease() throws Exception {
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        ExecutorService otherThread = Executors.newSingleThreadExecutor();
        RedisLockClient holderClient = RedisLockClient.builder(redis.newConnectionFactory()).build();
        RedisLockClient otherClient = RedisLockClient.builder(redis.newConnectionFactory()).build();
        LockCommands commands = new LockCommands(redis.newConnectionFactory());
        Releases real = new Releases();
        try {
            String name = "owned";
            ReentrantDistributedLock held = holderClient.getLock(name);
            // a fixed lease: its TTL only counts down, so any change shows
            long token = holderThread.submit(() -> {
                assertThat(held.tryLock(0, 10, TimeUnit.MINUTES)).isTrue();
                return held.fencingToken();
            }).get();
            Snapshot snapshot = new Snapshot(held.getKey());
            String holderOwner = snapshot.hash.keySet().iterator().next();
            LockKeys keys = LockKeys.of(holderClient.getKeyPrefix(), name);
            scenario.real(() -> {
                // another thread of the same client
                otherThread.submit(() -> {
                    for (int i = 0; i < OTHER_THREAD; i++) {
                        real.expectRefusal(() -> holderClient.getLock(name).unlock(), snapshot);
                    }
                    return null;
                }).get();
                // the same thread id on another client: the holder's own thread asks the other client to release
                holderThread.submit(() -> {
                    for (int i = 0; i < OTHER_CLIENT_SAME_THREAD_ID; i++) {
                        real.expectRefusal(() -> otherClient.getLock(name).unlock(), snapshot);
                    }
                    return null;
                }).get();
                // the release script with the holder's token but another owner, and with the owner but a stale token
                String otherOwner = otherClient.newOwner().id();
                for (int i = 0; i < SCRIPT_OTHER_OWNER; i++) {
                    real.expectScriptRefusal(commands.release(keys, otherOwner, token, 1).join(), snapshot);
                }
                for (int i = 0; i < SCRIPT_STALE_TOKEN; i++) {
                    real.expectScriptRefusal(commands.release(keys, holderOwner, token - 1 - i, 1).join(), snapshot);
                }
                // another process
                try (ChildJvm child = ChildJvm.start(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                        ReliabilityChild.class, "mode=nonowner", "port=" + redis.server().port(), "name=" + name,
                        "token=" + token, "attempts=" + OTHER_PROCESS)) {
                    String[] result = child.awaitLine(l -> l.startsWith("RESULT "), Duration.ofSeconds(120))
                            .split(" ");
                    long thrown = Long.parseLong(result[1]);
                    long scriptRefused = Long.parseLong(result[3]);
                    real.attempts.addAndGet(2L * OTHER_PROCESS);
                    real.refused.addAndGet(thrown + scriptRefused);
                    if (!snapshot.unchanged()) {
                        real.changed.incrementAndGet();
                    }
                }
                return real;
            });
            System.out.printf("scenario 8: %d attempts, %d refused, %d changes%n", real.attempts.get(),
                    real.refused.get(), real.changed.get());
            assertThat(held.isLocked()).isTrue();
            holderThread.submit(held::unlock).get();
            assertThat(real.attempts.get()).isEqualTo(TOTAL);
            assertThat(real.refused.get()).isEqualTo(TOTAL);
            assertThat(real.changed.get()).isZero();
        }
        finally {
            holderThread.shutdownNow();
            otherThread.shutdownNow();
            holderClient.close();
            otherClient.close();
        }
    }

    @Test
    @Order(2)
    void checkerCatchesReleasesWithoutOwnership() throws Exception {
        RedisLockClient client = RedisLockClient.builder(redis.newConnectionFactory()).build();
        LockCommands commands = new LockCommands(redis.newConnectionFactory());
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        Releases control;
        try {
            control = scenario.control(() -> brokenReleases(client, commands, holderThread));
        }
        finally {
            holderThread.shutdownNow();
            client.close();
        }
        System.out.printf("scenario 8 control: %d of %d went through, %d changed%n", control.accepted(),
                control.attempts.get(), control.changed.get());
        assertThat(control.accepted()).isPositive();
        assertThat(control.changed.get()).isPositive();
    }

    private Releases brokenReleases(RedisLockClient client, LockCommands commands, ExecutorService holderThread)
            throws Exception {
        Releases control = new Releases();
        // ownership removed: the threads share one owner, so another thread's unlock is the owner's
        LockOwner shared = client.newOwner();
        for (int i = 0; i < 50; i++) {
            ReentrantDistributedLock held = client.getLock("shared-" + i, shared);
            holderThread.submit(() -> held.tryLock(0, 10, TimeUnit.MINUTES)).get();
            Snapshot snapshot = new Snapshot(held.getKey());
            control.attempts.incrementAndGet();
            try {
                client.getLock("shared-" + i, shared).unlock(); // this thread is not the holder's
            }
            catch (IllegalMonitorStateException expected) {
                control.refused.incrementAndGet(); // what the real lock does
            }
            if (!snapshot.unchanged()) {
                control.changed.incrementAndGet();
            }
        }
        // a release script without the owner check: the token alone frees the lock
        String someoneElse = client.newOwner().id();
        try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RELEASE_NO_OWNER_CHECK)) {
            for (int i = 0; i < 50; i++) {
                String name = "no-owner-check-" + i;
                ReentrantDistributedLock held = client.getLock(name);
                long token = holderThread.submit(() -> {
                    held.tryLock(0, 10, TimeUnit.MINUTES);
                    return held.fencingToken();
                }).get();
                Snapshot snapshot = new Snapshot(held.getKey());
                control.expectScriptRefusal(commands.release(LockKeys.of(client.getKeyPrefix(), name), someoneElse,
                        token, 1).join(), snapshot);
            }
        }
        return control;
    }

    /** The hash as first seen, and the last TTL seen: a fixed lease only ever counts down. */
    private static final class Snapshot {
        final String key;
        final Map<String, String> hash;
        long lastPttl;

        Snapshot(String key) {
            this.key = key;
            this.hash = redis.commands().hgetall(key);
            this.lastPttl = redis.commands().pttl(key);
        }

        boolean unchanged() {
            long pttl = redis.commands().pttl(key);
            boolean same = redis.commands().hgetall(key).equals(hash) && pttl > 0 && pttl <= lastPttl;
            lastPttl = pttl;
            return same;
        }
    }
}
