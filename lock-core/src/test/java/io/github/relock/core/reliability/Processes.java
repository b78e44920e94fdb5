package io.github.relock.core.reliability;

import java.util.concurrent.TimeUnit;

/** Small process controls the fixtures do not offer. */
final class Processes {

    private Processes() {
    }

    /** {@code renice 19}: a child JVM that boots in the background does not delay timing measurements. */
    static void lowerPriority(long pid) {
        renice(pid, 19);
    }

    /** Back to {@code nice 0} (needs root; otherwise it stays low). */
    static void normalPriority(long pid) {
        renice(pid, 0);
    }

    private static void renice(long pid, int niceness) {
        try {
            Process renice = new ProcessBuilder("renice", "-n", Integer.toString(niceness), "-p", Long.toString(pid))
                    .redirectErrorStream(true).start();
            renice.getInputStream().readAllBytes();
            renice.waitFor(5, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            // best effort: without renice the figures are only noisier
        }
    }
}
