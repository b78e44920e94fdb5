package io.github.relock.sample.reactive.web;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.github.relock.sample.reactive.ReactiveSampleProperties;
import io.github.relock.sample.reactive.jobs.Progress;
import io.github.relock.sample.reactive.jobs.ReindexJob;
import reactor.core.publisher.Flux;

/**
 * {@code POST /tenants/{tenant}/reindex}: runs a reindex job and streams its progress, one JSON object per line
 * ({@code application/x-ndjson}). A client that disconnects cancels the stream, and with it the job and its lock.
 */
@RestController
class ReindexController {

    private final ReindexJob job;
    private final ReactiveSampleProperties.Reindex settings;

    ReindexController(ReindexJob job, ReactiveSampleProperties properties) {
        this.job = job;
        this.settings = properties.reindex();
    }

    @PostMapping(path = "/tenants/{tenant}/reindex", produces = MediaType.APPLICATION_NDJSON_VALUE)
    Flux<Progress> reindex(@PathVariable String tenant, @RequestParam(required = false) Integer steps) {
        int count = steps != null ? steps : settings.steps();
        if (count < 1 || count > settings.maxSteps()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "steps must be between 1 and "
                    + settings.maxSteps() + " (sample.reindex.max-steps)");
        }
        return job.run(tenant, count);
    }
}
