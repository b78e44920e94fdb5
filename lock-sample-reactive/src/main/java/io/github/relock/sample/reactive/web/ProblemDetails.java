package io.github.relock.sample.reactive.web;

import java.net.URI;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.github.relock.sample.reactive.orders.OrderAlreadyPaidException;
import io.github.relock.sample.reactive.orders.OrderNotFoundException;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * RFC 9457 problem bodies. A busy lock is 409 Conflict of type {@code urn:relock-reactive-sample:lock-busy}: the
 * method never ran. A payment that got the lock and found the order paid is 409 of type {@code ...:already-paid}.
 * Also for the streaming endpoint: a lock not acquired fails the {@code Flux} before its first element, while the
 * response can still become a 409.
 */
@RestControllerAdvice
class ProblemDetails {

    private static final Logger log = LoggerFactory.getLogger(ProblemDetails.class);

    @ExceptionHandler
    ResponseEntity<ProblemDetail> lockBusy(LockNotAcquiredException ex) {
        log.info("409 lock busy: {}", ex.getMessage());
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "Lock '" + ex.getLockName()
                + "' (" + ex.getLockKey() + ") stayed held by another request for the whole wait time of "
                + ex.getWaitTime().toMillis() + " ms, so nothing was done. Retry once that request is over.");
        problem.setType(URI.create("urn:relock-reactive-sample:lock-busy"));
        problem.setTitle("Lock busy");
        problem.setProperty("lockKey", ex.getLockKey());
        problem.setProperty("waitedMs", ex.getWaited().toMillis());
        return body(problem);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> alreadyPaid(OrderAlreadyPaidException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage()
                + "; nothing was charged.");
        problem.setType(URI.create("urn:relock-reactive-sample:already-paid"));
        problem.setTitle("Order already paid");
        problem.setProperty("chargeId", ex.getChargeId());
        return body(problem);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> notFound(OrderNotFoundException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
        problem.setTitle("Order not found");
        return body(problem);
    }

    // the streaming endpoint produces NDJSON: name the problem type, whatever that endpoint would have produced
    private static ResponseEntity<ProblemDetail> body(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
