package io.github.relock.sample.reactive.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

import io.github.relock.core.LockNames;
import io.github.relock.sample.reactive.ReactiveSampleProperties;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import reactor.core.publisher.Flux;

/**
 * Rebuilds a tenant's search index, one job per tenant at a time across every instance. The {@code Flux} holds the
 * tenant's lock for its whole stream: from subscription until the last step, an error, or the subscriber going
 * away (an HTTP client that disconnects cancels it, and the lock is given back then).
 *
 * <p>Wait and hold limits: {@code relock.locks.reindex.*} in {@code application.yml}. No fixed lease: the watchdog
 * keeps the lock while the stream runs, however long that is, up to {@code max-hold}.
 */
@Service
public class ReindexJob {

    /** The lock name: {@code reindex:<tenant>}. */
    public static final String LOCK = "reindex";

    private static final Logger log = LoggerFactory.getLogger(ReindexJob.class);

    private final Duration stepDelay;

    public ReindexJob(ReactiveSampleProperties properties) {
        this.stepDelay = properties.reindex().stepDelay();
    }

    /** Runs the job in {@code steps} steps, one progress event after each. */
    @DistributedLock(name = LOCK, key = "#tenant")
    public Flux<Progress> run(String tenant, int steps) {
        String lockName = LockNames.of(LOCK, tenant); // for the log lines outside the chain's hold
        AtomicInteger done = new AtomicInteger();
        return CurrentLock.mono().flatMapMany(held -> {
            log.info("Reindexing tenant {} in {} steps under lock {} (fencing token {})", tenant, steps, held.name(),
                    held.fencingToken());
            return Flux.interval(stepDelay).take(steps)
                    .map(tick -> new Progress(tenant, done.incrementAndGet(), steps, held.name(), held.fencingToken(),
                            Instant.now()));
        })
                .doOnComplete(() -> log.info("Reindexed tenant {}: lock {} is given back", tenant, lockName))
                .doOnCancel(() -> log.info("Reindex of tenant {} cancelled after {} of {} steps (the client went away): "
                        + "lock {} is given back", tenant, done.get(), steps, lockName));
    }
}
