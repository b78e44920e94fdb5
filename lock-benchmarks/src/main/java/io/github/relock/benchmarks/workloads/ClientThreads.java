package io.github.relock.benchmarks.workloads;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.AsyncLock;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;
import io.github.relock.benchmarks.report.ThreadsResult;

/**
 * Threads per client: the threads of this JVM that appear while one new client of a library holds a lock with no
 * lease through a renewal round, makes asynchronous calls, and has a waiter woken by a release, split into Lettuce's
 * ({@code lettuce-} names), the JVM's common pool's (shared by all of the JVM, where a library may complete its
 * futures) and the client's own, by name. Nothing else runs meanwhile, so every new thread is started for the
 * client; those of Lettuce and the client still alive 2 s after {@code close()} are counted too.
 */
public final class ClientThreads {

    /** Short enough that a renewal round runs within the count. */
    public static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(900);
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-[0-9a-f]+(?![0-9a-zA-Z]))?");
    private static final Pattern NUMBERS = Pattern.compile("\\d+");
    /** The JVM's {@code ForkJoinPool.commonPool()}: shared by the whole JVM, and its workers idle out after a minute. */
    private static final String COMMON_POOL = "ForkJoinPool.commonPool-worker-";

    public ThreadsResult run(LockLibrary library, RunContext context) {
        if (!library.hasAsyncLocks()) {
            return ThreadsResult.skipped(library.id(), "skipped: " + library.id() + " has no asynchronous lock");
        }
        context.settle();
        String names = context.freshNames("threads");
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        Map<String, Integer> own;
        int lettuce;
        int shared;
        try (LockClient client = library.connect(context.target(), WATCHDOG_TIMEOUT)) {
            BenchLock renewed = client.lock(names + "-renewed");
            renewed.lock();
            AsyncLock holder = client.asyncLock(names + "-waited");
            AsyncLock waiter = client.asyncLock(names + "-waited");
            if (!holder.tryLock(Duration.ZERO, Duration.ofSeconds(10)).toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("a free lock was not taken");
            }
            var waiting = waiter.tryLock(Duration.ofSeconds(10), Duration.ofSeconds(10)).toCompletableFuture();
            Thread.sleep(WATCHDOG_TIMEOUT.toMillis()); // the waiter is subscribed; a renewal round runs
            holder.unlock().toCompletableFuture().get(10, TimeUnit.SECONDS);
            if (!waiting.get(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the waiter was not woken within 10 s");
            }
            waiter.unlock().toCompletableFuture().get(10, TimeUnit.SECONDS);
            renewed.unlock();
            Map<String, Integer> started = new TreeMap<>();
            Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                    .forEach(t -> started.merge(shape(t.getName()), 1, Integer::sum));
            lettuce = started.entrySet().stream().filter(e -> e.getKey().startsWith("lettuce-"))
                    .mapToInt(Map.Entry::getValue).sum();
            shared = started.entrySet().stream().filter(e -> e.getKey().startsWith(COMMON_POOL))
                    .mapToInt(Map.Entry::getValue).sum();
            own = started.entrySet().stream().filter(e -> !e.getKey().startsWith("lettuce-"))
                    .filter(e -> !e.getKey().startsWith(COMMON_POOL))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, Integer::sum, TreeMap::new));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return ThreadsResult.skipped(library.id(), "interrupted");
        }
        catch (Exception ex) {
            return ThreadsResult.skipped(library.id(), "failed: " + ex);
        }
        try {
            Thread.sleep(2_000);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        int left = (int) Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .filter(t -> !t.getName().startsWith(COMMON_POOL)).count();
        return new ThreadsResult(library.id(), own, lettuce, shared, left, "");
    }

    /** A thread's name with client ids written ID and counters N, so that a client's threads group by what they are. */
    static String shape(String name) {
        return NUMBERS.matcher(UUID.matcher(name).replaceAll("ID")).replaceAll("N");
    }
}
