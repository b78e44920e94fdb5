package io.github.relock.core.reliability;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.kind.LockKeys;

/**
 * A lock user in its own JVM, so that scenarios can SIGKILL or SIGSTOP a real holder (watchdog and all)
 * or act as "another process". Arguments are {@code key=value} pairs: {@code mode} (hold, hold-many,
 * hold-async, nonowner),
 * {@code port}, {@code name}, {@code lease} (fixed lease in ms) or {@code watchdog} (watchdog timeout in
 * ms), optionally {@code kind} ({@code read}: the read side of a read-write lock, {@code fair}: a fair lock;
 * otherwise an exclusive lock), {@code broken} (a {@link BrokenScripts} breakage to apply in this JVM) and
 * {@code ready} (print {@code READY} once connected and wait for {@code acquire} on stdin before taking the lock).
 *
 * <p>Talks on stdout, with {@link System#nanoTime()} instants the parent can compare with its own:
 * {@code HELD <token> <acquiredNanos> <invokedNanos> <ownerId>}, {@code WRITE <token> <nanos>}, {@code LOST <token>
 * <nanos>}, {@code UNLOCK <outcome>}, {@code RESULT ...}. Reads commands on stdin: {@code write-loop},
 * {@code stop-writes}, {@code unlock}, {@code reacquire}, {@code exit}.
 */
public final class ReliabilityChild {

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = arguments(argv);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args.get("port"))),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        RedisLockClient.Builder builder = RedisLockClient.builder(factory)
                .lockLostListener(event -> say("LOST " + event.fencingToken() + " " + System.nanoTime()));
        if (args.containsKey("watchdog")) {
            builder.watchdogTimeout(Duration.ofMillis(Long.parseLong(args.get("watchdog"))));
        }
        RedisLockClient client = builder.build();
        switch (args.get("mode")) {
            case "hold" -> hold(client, args);
            case "hold-many" -> holdMany(client, args);
            case "hold-async" -> holdAsync(client, args);
            case "nonowner" -> nonOwner(client, factory, args);
            default -> throw new IllegalArgumentException("mode " + args.get("mode"));
        }
    }

    private static void hold(RedisLockClient client, Map<String, String> args) throws Exception {
        ReentrantDistributedLock lock = switch (args.getOrDefault("kind", "exclusive")) {
            case "read" -> client.getReadWriteLock(args.get("name")).readLock();
            case "fair" -> client.getFairLock(args.get("name"));
            default -> client.getLock(args.get("name"));
        };
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (args.containsKey("ready")) {
            lock.isLocked(); // connected and warmed up
            say("READY");
            String go = in.readLine();
            if (!"acquire".equals(go)) {
                System.exit(3);
            }
        }
        long token = acquire(client, lock, args);
        AtomicBoolean writing = new AtomicBoolean();
        for (String line; (line = in.readLine()) != null; ) {
            switch (line.trim()) {
                case "write-loop" -> startWriting(token, writing);
                case "stop-writes" -> {
                    writing.set(false);
                    Thread.sleep(30);
                    say("STOPPED");
                }
                case "unlock" -> {
                    try {
                        lock.unlock();
                        say("UNLOCK ok");
                    }
                    catch (RuntimeException ex) {
                        say("UNLOCK " + ex.getClass().getSimpleName());
                    }
                }
                case "reacquire" -> token = acquire(client, lock, args);
                case "exit" -> System.exit(0); // no unlock, no close: what a JVM that just ends does
                default -> say("UNKNOWN " + line);
            }
        }
        System.exit(0);
    }

    /**
     * A child JVM's {@code key=value} arguments. A {@code broken} one (a {@link BrokenScripts} breakage) is
     * applied to this JVM at once, for its whole life.
     */
    public static Map<String, String> arguments(String[] argv) {
        Map<String, String> args = new HashMap<>();
        for (String arg : argv) {
            int eq = arg.indexOf('=');
            args.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        if (args.containsKey("broken")) {
            BrokenScripts.apply(args.get("broken"));
        }
        return args;
    }

    /** Holds {@code count} watchdog locks named {@code name-0..}, then waits for "exit". */
    private static void holdMany(RedisLockClient client, Map<String, String> args) throws Exception {
        int count = Integer.parseInt(args.get("count"));
        for (int i = 0; i < count; i++) {
            ReentrantDistributedLock lock = client.getLock(args.get("name") + "-" + i);
            if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                say("NOT-ACQUIRED " + i);
                System.exit(2);
            }
        }
        say("HELD-MANY " + count);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.trim().equals("exit")) {
                System.exit(0);
            }
        }
        System.exit(0);
    }

    /**
     * Once told "acquire", takes {@code count} locks named {@code name-0..} at once through the asynchronous API,
     * each for an owner of its own (even ones with the fixed {@code lease}, odd ones with the watchdog); prints
     * {@code HELD-ASYNC <i> <token> <acquiredNanos> <invokedNanos>} as each future completes, then waits for "exit".
     */
    private static void holdAsync(RedisLockClient client, Map<String, String> args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        client.getLock(args.get("name")).isLocked(); // connected and warmed up
        say("READY");
        if (!"acquire".equals(in.readLine())) {
            System.exit(3);
        }
        long invoked = System.nanoTime();
        Duration lease = Duration.ofMillis(Long.parseLong(args.get("lease")));
        for (int i = 0, count = Integer.parseInt(args.get("count")); i < count; i++) {
            String name = args.get("name") + "-" + i;
            LockOwner owner = client.newOwner();
            int index = i;
            client.getLock(name).tryLockAsync(Duration.ofSeconds(30), i % 2 == 0 ? lease : null, owner)
                    .thenAccept(held -> {
                        long acquired = System.nanoTime();
                        if (!held) {
                            say("NOT-ACQUIRED " + index);
                            System.exit(2);
                        }
                        say("HELD-ASYNC " + index + " " + tokenOf(client.getLock(name, owner)) + " " + acquired
                                + " " + invoked);
                    });
        }
        for (String line; (line = in.readLine()) != null && !line.trim().equals("exit"); ) {
            // holds until told to exit, or killed
        }
        System.exit(0);
    }

    /**
     * Another process tries to free a lock it does not hold, {@code attempts} times each way: through the
     * lock API, and through the release script with the holder's fencing token but this process's owner id.
     */
    private static void nonOwner(RedisLockClient client, LettuceConnectionFactory factory, Map<String, String> args) {
        String name = args.get("name");
        long token = Long.parseLong(args.get("token"));
        int attempts = Integer.parseInt(args.get("attempts"));
        LockCommands commands = new LockCommands(factory);
        LockKeys keys = LockKeys.of(client.getKeyPrefix(), name);
        String ownOwner = client.newOwner().id();
        long thrown = 0;
        long silent = 0;
        long refused = 0;
        long accepted = 0;
        for (int i = 0; i < attempts; i++) {
            try {
                client.getLock(name).unlock();
                silent++;
            }
            catch (LockLostException | IllegalMonitorStateException ex) {
                thrown++;
            }
            long left = commands.release(keys, ownOwner, token, 1).join();
            if (left < 0) {
                refused++;
            }
            else {
                accepted++;
            }
        }
        say("RESULT " + thrown + " " + silent + " " + refused + " " + accepted);
        System.exit(0);
    }

    /** @return the hold's fencing token */
    private static long acquire(RedisLockClient client, ReentrantDistributedLock lock, Map<String, String> args)
            throws InterruptedException {
        long invoked = System.nanoTime();
        boolean held = args.containsKey("lease")
                ? lock.tryLock(30, Long.parseLong(args.get("lease")), TimeUnit.MILLISECONDS)
                : lock.tryLock(30, TimeUnit.SECONDS);
        long acquired = System.nanoTime();
        if (!held) {
            say("NOT-ACQUIRED");
            System.exit(2);
        }
        // the owner id names this hold in Redis, for a parent that must read its own lease there
        String owner = client.heldLocks().stream().filter(h -> h.key().equals(lock.getKey())).findFirst()
                .map(HeldLock::ownerId).orElse("?");
        long token = tokenOf(lock);
        say("HELD " + token + " " + acquired + " " + invoked + " " + owner);
        return token;
    }

    /**
     * The token of the hold just granted, even if a slow machine let its lease run out before this line
     * ({@code fencingToken()} then throws): the parent judges such a trial by the lease in Redis.
     */
    private static long tokenOf(ReentrantDistributedLock lock) {
        return lock.currentHold().map(HeldLock::fencingToken).orElseThrow();
    }

    private static void startWriting(long token, AtomicBoolean writing) {
        writing.set(true);
        Thread writer = new Thread(() -> {
            // a holder that does not look at isLost(): only fencing can stop its writes
            while (writing.get()) {
                say("WRITE " + token + " " + System.nanoTime());
                try {
                    Thread.sleep(10);
                }
                catch (InterruptedException ex) {
                    return;
                }
            }
        }, "writer");
        writer.setDaemon(true);
        writer.start();
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
