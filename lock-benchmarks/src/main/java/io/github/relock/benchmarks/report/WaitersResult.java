package io.github.relock.benchmarks.report;

/**
 * One library's S2 run: many asynchronous waiters on fewer keys, each holding its key briefly.
 *
 * @param library           library id
 * @param clients           independent clients the waiters were spread over
 * @param waiters           waiters started, each taking its key once
 * @param keys              keys they were spread over
 * @param seconds           from the first call to the last waiter done
 * @param wakeUps           acquisitions that followed a release of the same key (every one but each key's first)
 * @param p50WakeUpMicros   median time from a release completing to the next holder's acquisition completing
 * @param p99WakeUpMicros   99th percentile of it
 * @param maxWakeUpMicros   the longest
 * @param overslept         waiters that got their key after their wait time, or heard of a timeout late (target 0)
 * @param timedOut          waiters whose wait time passed without the key
 * @param failed            calls that completed exceptionally
 * @param unfinished        waiters still not done when the run's bound ran out (a stall)
 * @param overlaps          acquisitions of a key its previous holder had not released
 * @param peakPubSub        most connections in pub/sub mode at once during the run, all clients together
 * @param before            subscriptions on the server before the waiters started (clients warm)
 * @param after             subscriptions once the waiters were done (polled until back to {@code before}, or 5 s)
 * @param firstFailure      what the first failed call threw, empty if none failed
 * @param note              why it was skipped, if it was
 */
public record WaitersResult(String library, int clients, int waiters, int keys, double seconds, long wakeUps,
        long p50WakeUpMicros, long p99WakeUpMicros, long maxWakeUpMicros, long overslept, long timedOut, long failed,
        long unfinished, long overlaps, int peakPubSub, Subscriptions before, Subscriptions after, String firstFailure,
        String note) {

    /**
     * Counts of the server's subscriptions.
     *
     * @param channels    channels with at least one subscriber (PUBSUB CHANNELS)
     * @param subscribers the PUBSUB NUMSUB of those channels, added up
     * @param patterns    PUBSUB NUMPAT
     */
    public record Subscriptions(int channels, long subscribers, long patterns) {

        static final Subscriptions NONE = new Subscriptions(0, 0, 0);

        @Override
        public String toString() {
            return channels + " ch / " + subscribers + " sub" + (patterns == 0 ? "" : " / " + patterns + " pat");
        }
    }

    public static WaitersResult skipped(String library, String reason) {
        return new WaitersResult(library, 0, 0, 0, Double.NaN, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Subscriptions.NONE,
                Subscriptions.NONE, "", reason);
    }

    public boolean ran() {
        return note.isEmpty();
    }

    /** Whether the subscriptions went back to what they were before the waiters came. */
    public boolean backToBaseline() {
        return before.equals(after);
    }

    /** Whether no client ever had more than one connection in pub/sub mode. */
    public boolean onePubSubPerClient() {
        return peakPubSub <= clients;
    }
}
