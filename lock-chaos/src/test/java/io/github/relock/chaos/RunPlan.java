package io.github.relock.chaos;

/**
 * What one run does: its seed and length, whether it has Sentinel phases, how many client JVMs with how
 * many driver threads on how many locks, and for a control the deliberate breakage its clients run with.
 *
 * @param broken      a {@code BrokenScripts} breakage applied in every client JVM, or null
 * @param brokenClose whether every programmatic {@code close()} leaks its watchdog and subscription
 */
record RunPlan(String label, long seed, long scheduleMillis, boolean sentinel, int children, int threads,
               int annotatedThreads, int locks, String broken, boolean brokenClose) {

    /** The real lock: three JVMs, six programmatic and three annotated threads each, four locks. */
    static RunPlan real(long seed, long scheduleMillis) {
        return new RunPlan("random fault schedule", seed, scheduleMillis, true, 3, 6, 3, 4, null, false);
    }

    /** A short standalone run against a deliberately broken lock. */
    static RunPlan control(String label, long seed, long scheduleMillis, String broken, boolean brokenClose) {
        return new RunPlan(label, seed, scheduleMillis, false, 3, 6, 3, 4, broken, brokenClose);
    }
}
