package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.relock.test.RedisServer;

/**
 * The parent's look into Redis after each client {@code close()}: two watchdog leases (plus slack) later,
 * nothing of that client may be left: no lock hash field of one of its owners (nobody renews it), and no
 * pub/sub channel named after it. At the end of a run, with every client closed, no channel may have a
 * subscriber on any data node.
 */
final class CloseProbes implements AutoCloseable {

    private static final long AFTER_MILLIS = 2 * Timing.WATCHDOG_MILLIS + Timing.SLACK_MILLIS;
    private static final long RETRY_MILLIS = 500;
    private static final int ATTEMPTS = 40;

    private final Topology topology;
    private final ChaosHistory history;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "chaos-close-probe");
        thread.setDaemon(true);
        return thread;
    });

    CloseProbes(Topology topology, ChaosHistory history) {
        this.topology = topology;
        this.history = history;
        history.onClosed(this::schedule);
    }

    private void schedule(Ev.Closed closed) {
        long delay = closed.ret() + Timing.nanos(AFTER_MILLIS) - System.nanoTime();
        scheduler.schedule(() -> probe(closed, 1), Math.max(0, delay), TimeUnit.NANOSECONDS);
    }

    private void probe(Ev.Closed closed, int attempt) {
        String leftovers;
        try {
            leftovers = leftovers(topology.current(), closed.client());
        }
        catch (RuntimeException ex) {
            // Redis paused, restarting or failing over right now: look again soon
            if (attempt < ATTEMPTS) {
                scheduler.schedule(() -> probe(closed, attempt + 1), RETRY_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
            leftovers = "inconclusive";
        }
        history.add(new Ev.Probe(closed.client(), closed.ret(), System.nanoTime(), Ev.token(leftovers)));
    }

    /** What a closed client left in Redis: its owners' hash fields and its channels ("-": nothing). */
    private static String leftovers(RedisServer redis, String clientId) {
        List<String> left = new ArrayList<>();
        String channels = redis.command("PUBSUB", "CHANNELS", "*" + clientId + "*");
        if (channels != null && !channels.isEmpty()) {
            left.add("channels=" + channels.replace('\n', ','));
        }
        for (String key : lines(redis.command("KEYS", "*"))) {
            if ("hash".equals(redis.command("TYPE", key))) {
                for (String field : lines(redis.command("HKEYS", key))) {
                    if (field.startsWith(clientId + ":")) {
                        left.add("renewed=" + key + "/" + field + "/pttl" + redis.command("PTTL", key));
                    }
                }
            }
        }
        return left.isEmpty() ? "-" : String.join(";", left);
    }

    /** Waits for the probes of every close so far (each at most {@code AFTER + ATTEMPTS * RETRY}). */
    void awaitPending() throws InterruptedException {
        long deadline = System.nanoTime() + Timing.nanos(AFTER_MILLIS + ATTEMPTS * RETRY_MILLIS + 1_000);
        while (history.all(Ev.Probe.class).stream().filter(p -> !p.client().equals("start")).count()
                < history.all(Ev.Closed.class).size() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    /**
     * Channels with subscribers on any data node, apart from the Sentinels' own: {@code "start"} before the
     * clients start, {@code "end"} once every client is closed.
     */
    void probeChannels(String when, long closedAt) {
        List<String> left = new ArrayList<>();
        boolean unreachable = false;
        for (RedisServer node : topology.dataNodes()) {
            try {
                for (String channel : lines(node.command("PUBSUB", "CHANNELS", "*"))) {
                    if (!channel.startsWith("__sentinel__")) {
                        left.add(node.port() + "/" + channel);
                    }
                }
            }
            catch (RuntimeException ex) {
                unreachable = true;
            }
        }
        String leftovers = !left.isEmpty() ? String.join(";", left) : unreachable ? "inconclusive" : "-";
        history.add(new Ev.Probe(when, closedAt, System.nanoTime(), Ev.token(leftovers)));
    }

    private static List<String> lines(String reply) {
        return reply == null || reply.isEmpty() ? List.of() : List.of(Objects.requireNonNull(reply).split("\n"));
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
