package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.test.RedisServer;

/**
 * With {@code minReplicas} and a replica that does not acknowledge (its process paused), the WAITs of an acquisition
 * and of a watchdog renewal block their connections on the server for the whole ack timeout, while no thread of the
 * client waits for their replies: each step of script, WAIT and give-back is sent when the reply before it comes in.
 * The acquisition is refused once the ack timeout has run out, not later.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class NoThreadWaitsForReplicasTest {

    private static final Duration WATCHDOG = Duration.ofSeconds(6); // a renewal round every 2 s
    private static final Duration ACK_TIMEOUT = Duration.ofMillis(1_500);
    private static final Pattern WAITING = Pattern.compile("^id=(\\d+) .* cmd=wait( |$)", Pattern.MULTILINE);

    @Test
    void anAcquisitionAndARenewalWaitForReplicasWithNoClientThreadBlocked() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(WATCHDOG).minReplicas(1).replicaAckTimeout(ACK_TIMEOUT).build()) {
                ReentrantDistributedLock renewed = client.getLock("renewed");
                assertThat(renewed.tryLock(5, TimeUnit.SECONDS)).as("a replica just online may need a moment").isTrue();
                replica.pause();
                try {
                    CompletableFuture<Long> refusedAfter = new CompletableFuture<>();
                    Thread caller = new Thread(() -> {
                        long start = System.nanoTime();
                        boolean got = client.getLock("refused").tryLock();
                        refusedAfter.complete(got ? -1 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    }, "caller");
                    caller.start();
                    // the acquisition's WAIT now, the watchdog's renewal WAIT about 2 s after the hold was taken
                    // a WAIT starts whenever a connection is seen in one that it was not in at the sample before
                    List<String> waits = new ArrayList<>();
                    Set<String> waitingBefore = new HashSet<>();
                    List<String> blocked = new ArrayList<>();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
                    long until = deadline; // once both WAITs were seen: a while longer, well within the second one
                    while (System.nanoTime() - until < 0) {
                        Matcher waiting = WAITING.matcher(String.valueOf(primary.command("CLIENT", "LIST")));
                        Set<String> waitingNow = new HashSet<>();
                        while (waiting.find()) {
                            waitingNow.add(waiting.group(1));
                        }
                        for (String connection : waitingNow) {
                            if (!waitingBefore.contains(connection)) {
                                waits.add(connection);
                            }
                        }
                        waitingBefore = waitingNow;
                        blocked.addAll(threadsWaitingForAReply());
                        if (waits.size() >= 2 && refusedAfter.isDone() && until == deadline) {
                            until = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500));
                        }
                        Thread.sleep(5);
                    }
                    System.out.printf("WAITs seen on the primary (by connection): %s; client threads seen waiting for a "
                            + "reply: %s%n", waits, blocked);
                    assertThat(waits).as("the acquisition's WAIT and the renewal's").hasSizeGreaterThanOrEqualTo(2);
                    assertThat(blocked).as("relock threads waiting for a reply while the WAITs ran").isEmpty();
                    long millis = refusedAfter.get(5, TimeUnit.SECONDS);
                    assertThat(millis).as("refused, no replica having acknowledged").isNotNegative()
                            .isGreaterThanOrEqualTo(ACK_TIMEOUT.toMillis() - 50)
                            .isLessThan(ACK_TIMEOUT.toMillis() + 1_000);
                }
                finally {
                    replica.resume();
                }
            }
        }
    }

    /**
     * The client's threads ({@code relock-}) that wait for the reply to a Redis call: parked on a future that relock
     * code waits for, or in a relock method named {@code await}.
     */
    private static List<String> threadsWaitingForAReply() {
        List<String> found = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
            if (!thread.getKey().getName().startsWith("relock-")) {
                continue;
            }
            StackTraceElement[] stack = thread.getValue();
            for (int i = 0; i < stack.length; i++) {
                boolean futureWait = isFutureWait(stack[i]) && i + 1 < stack.length && isRelock(stack[i + 1]);
                boolean relockAwait = isRelock(stack[i]) && stack[i].getMethodName().equals("await");
                if (futureWait || relockAwait) {
                    found.add(thread.getKey().getName() + " in " + stack[i] + " from " + (i + 1 < stack.length
                            ? stack[i + 1] : "?"));
                    break;
                }
            }
        }
        return found;
    }

    private static boolean isFutureWait(StackTraceElement frame) {
        String type = frame.getClassName();
        String method = frame.getMethodName();
        return (type.equals("java.util.concurrent.CompletableFuture") && (method.equals("get") || method.equals("join")))
                || (type.equals("java.util.concurrent.FutureTask") && method.equals("get"))
                || (type.startsWith("io.lettuce.") && method.startsWith("await"));
    }

    private static boolean isRelock(StackTraceElement frame) {
        return frame.getClassName().startsWith("io.github.relock.");
    }
}
