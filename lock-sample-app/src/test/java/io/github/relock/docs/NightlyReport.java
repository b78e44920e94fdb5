package io.github.relock.docs;

import java.time.LocalDate;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;

/** The getting-started {@code @Scheduled} recipe: every instance schedules the job, one of them runs it. */
@Component
public class NightlyReport {

    private static final Logger log = LoggerFactory.getLogger(NightlyReport.class);

    private final AtomicInteger built = new AtomicInteger();
    private final AtomicInteger skipped = new AtomicInteger();

    // tag::scheduled[]
    @Scheduled(cron = "${reports.nightly.cron:0 0 2 * * *}")     // fires on every instance...
    @DistributedLock(name = "nightly-report", waitTime = "0s",   // ...one attempt, no queueing
            fallbackMethod = "alreadyRunning")
    public void build() {
        // only the instance that got the lock gets here; the watchdog keeps the lock
        // for as long as this runs, and it is released when build() returns
        buildReportFor(LocalDate.now().minusDays(1));
    }

    void alreadyRunning(LockNotAcquiredException busy) {         // the other instances
        log.info("Nightly report runs elsewhere ({}); skipped here", busy.getLockName());
        skipped.incrementAndGet();
    }
    // end::scheduled[]

    void buildReportFor(LocalDate day) {
        built.incrementAndGet();
    }

    /** How many times this instance built the report. */
    public int built() {
        return built.get();
    }

    /** How many times this instance found it running elsewhere. */
    public int skipped() {
        return skipped.get();
    }
}
