package io.github.relock.core;

import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.relock.test.RedisServer;

/** Replication state and the clients a server sees, as the replica tests wait for them. */
public final class Replication {

    private Replication() {
    }

    /** Waits for the primary's replica to be online, so that a WAIT can be acknowledged at all. */
    public static void awaitReplicaOnline(RedisServer primary) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            String info = primary.command("INFO", "replication");
            if (info != null && info.contains("slave0:") && info.contains("state=online")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("replica never came online");
    }

    /** The id of the client whose current command is {@code command}, as CLIENT LIST shows it. */
    public static String awaitClientBlockedIn(RedisServer server, String command) throws InterruptedException {
        Pattern line = Pattern.compile("^id=(\\d+) .* cmd=" + command + "( |$)", Pattern.MULTILINE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Matcher matcher = line.matcher(String.valueOf(server.command("CLIENT", "LIST")));
            if (matcher.find()) {
                return matcher.group(1);
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no client blocked in " + command);
    }

    public static int connectedClients(RedisServer server) {
        String info = String.valueOf(server.command("INFO", "clients"));
        Matcher matcher = Pattern.compile("connected_clients:(\\d+)").matcher(info);
        if (!matcher.find()) {
            throw new AssertionError(info);
        }
        return Integer.parseInt(matcher.group(1));
    }
}
