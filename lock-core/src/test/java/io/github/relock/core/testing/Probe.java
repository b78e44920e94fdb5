package io.github.relock.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.lettuce.core.api.sync.RedisCommands;

/** Small observations of the JVM and the server: relock's threads, subscriptions and connections. */
public final class Probe {

    private Probe() {
    }

    /** Live threads whose name starts with "relock" and contains {@code part} (e.g. a client id). */
    public static List<String> relockThreads(String part) {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("relock") && t.getName().contains(part)) {
                names.add(t.getName());
            }
        }
        return names;
    }

    /** The same threads with their states and stacks, for a failure message. */
    public static List<String> relockThreadStacks(String part) {
        List<String> described = new ArrayList<>();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.isAlive() && t.getName().startsWith("relock") && t.getName().contains(part)) {
                StringBuilder text = new StringBuilder(t.getName()).append(' ').append(t.getState());
                for (StackTraceElement frame : stack) {
                    text.append("\n    ").append(frame);
                }
                described.add(text.toString());
            }
        });
        return described;
    }

    public static boolean eventually(long millis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }

    public static long numsub(RedisCommands<String, String> redis, String channel) {
        return redis.pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    public static List<String> channels(RedisCommands<String, String> redis) {
        return redis.pubsubChannels();
    }

    public static int clientCount(RedisCommands<String, String> redis) {
        return (int) redis.clientList().lines().filter(l -> !l.isBlank()).count();
    }
}
