package io.github.relock.sample.web;

import java.net.URI;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.github.relock.core.StaleFencingTokenException;
import io.github.relock.sample.orders.OrderNotFoundException;
import io.github.relock.sample.payments.OrderAlreadyPaidException;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * RFC 9457 problem bodies ({@code application/problem+json}). Every way a second payment of an order is
 * turned away is a 409 Conflict, told apart by {@code type}:
 * <ul>
 * <li>{@code urn:relock-sample:lock-busy}: another payment of the order held the lock for the whole wait
 * time (it may still fail: retry, or look at the order);</li>
 * <li>{@code urn:relock-sample:already-paid}: this payment got the lock and found the order paid;</li>
 * <li>{@code urn:relock-sample:stale-lock}: this payment's lease ran out before it wrote the order, and a later
 * payment holding the lock wrote it first; the fenced write refused this one and its transaction rolled back.</li>
 * </ul>
 */
@RestControllerAdvice
public class ProblemDetails {

    private static final Logger log = LoggerFactory.getLogger(ProblemDetails.class);

    @ExceptionHandler
    ProblemDetail lockBusy(LockNotAcquiredException ex) {
        log.info("409 lock busy: {}", ex.getMessage());
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
                "Another payment of this order held lock '" + ex.getLockName() + "' (" + ex.getLockKey() + ") for the whole "
                        + "wait time of " + ex.getWaitTime().toMillis() + " ms; nothing was charged. Retry, or GET the order.");
        problem.setType(URI.create("urn:relock-sample:lock-busy"));
        problem.setTitle("Lock busy");
        problem.setProperty("lock", ex.getLockName());
        problem.setProperty("lockKey", ex.getLockKey());
        problem.setProperty("waitTimeMs", ex.getWaitTime().toMillis());
        problem.setProperty("waitedMs", ex.getWaited().toMillis());
        return problem;
    }

    @ExceptionHandler
    ProblemDetail alreadyPaid(OrderAlreadyPaidException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
                ex.getMessage() + "; nothing was charged.");
        problem.setType(URI.create("urn:relock-sample:already-paid"));
        problem.setTitle("Order already paid");
        problem.setProperty("orderId", ex.getOrderId());
        problem.setProperty("paymentId", ex.getPaymentId());
        return problem;
    }

    @ExceptionHandler
    ProblemDetail staleLock(StaleFencingTokenException ex) {
        log.warn("409 stale lock: {}", ex.getMessage());
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "This payment's lock ran out "
                + "before it was recorded, and a later payment of the order wrote it first; nothing was recorded. "
                + "GET the order.");
        problem.setType(URI.create("urn:relock-sample:stale-lock"));
        problem.setTitle("Lock lost before the payment was recorded");
        problem.setProperty("orderId", ex.getId());
        problem.setProperty("fencingToken", ex.getToken());
        return problem;
    }

    @ExceptionHandler
    ProblemDetail notFound(OrderNotFoundException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
        problem.setTitle("Order not found");
        problem.setProperty("orderId", ex.getOrderId());
        return problem;
    }

    @ExceptionHandler
    ProblemDetail badRequest(BadRequestException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
    }
}
