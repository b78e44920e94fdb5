package io.github.relock.sample.reactive.jobs;

import java.time.Instant;

/**
 * One progress event of a reindex job.
 *
 * @param tenant       whose index is rebuilt
 * @param step         steps done so far
 * @param steps        steps in all
 * @param lock         the lock the job holds ({@code reindex:<tenant>})
 * @param fencingToken the token of that hold: the same for every event of one job
 * @param at           when the step ended
 */
public record Progress(String tenant, int step, int steps, String lock, long fencingToken, Instant at) {
}
