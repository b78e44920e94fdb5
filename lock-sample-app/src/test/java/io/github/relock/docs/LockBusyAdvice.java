package io.github.relock.docs;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.github.relock.spring.LockNotAcquiredException;

/** The getting-started HTTP recipe: a lock that stayed busy for the whole wait time becomes a 409. */
// tag::http-409[]
@RestControllerAdvice
public class LockBusyAdvice {

    @ExceptionHandler(LockNotAcquiredException.class)
    ProblemDetail lockBusy(LockNotAcquiredException busy) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
                "Another request is working on this; try again shortly.");
        problem.setTitle("Lock busy");
        problem.setProperty("lock", busy.getLockName());               // "shipping:42"
        problem.setProperty("waitedMs", busy.getWaited().toMillis());
        return problem;                                                 // nothing ran under the lock
    }
}
// end::http-409[]
