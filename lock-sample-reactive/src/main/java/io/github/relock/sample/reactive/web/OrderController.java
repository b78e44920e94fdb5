package io.github.relock.sample.reactive.web;

import java.net.URI;
import java.time.Duration;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.github.relock.sample.reactive.ReactiveSampleProperties;
import io.github.relock.sample.reactive.orders.Order;
import io.github.relock.sample.reactive.orders.OrderNotFoundException;
import io.github.relock.sample.reactive.orders.OrderStore;
import io.github.relock.sample.reactive.payments.PaymentReceipt;
import io.github.relock.sample.reactive.payments.PaymentService;
import reactor.core.publisher.Mono;

/** {@code /orders}: create, look at and pay orders. */
@RestController
class OrderController {

    private final OrderStore orders;
    private final PaymentService payments;
    private final Duration maxExtraDelay;

    OrderController(OrderStore orders, PaymentService payments, ReactiveSampleProperties properties) {
        this.orders = orders;
        this.payments = payments;
        this.maxExtraDelay = properties.payment().maxExtraDelay();
    }

    @PostMapping("/orders")
    Mono<ResponseEntity<Order>> create(@RequestBody NewOrder order) {
        if (order.customer() == null || order.customer().isBlank() || order.amount() == null
                || order.amount().signum() <= 0) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    "Give a customer and an amount above zero, e.g. {\"customer\":\"ada\",\"amount\":42.50}");
        }
        return orders.create(order.customer(), order.amount())
                .map(created -> ResponseEntity.created(URI.create("/orders/" + created.id())).body(created));
    }

    @GetMapping("/orders/{id}")
    Mono<Order> find(@PathVariable long id) {
        return orders.find(id).switchIfEmpty(Mono.error(() -> new OrderNotFoundException(id)));
    }

    /** {@code ?delayMs=5000}: the card processor takes that much longer, so the lock is held that much longer. */
    @PostMapping("/orders/{id}/pay")
    Mono<PaymentReceipt> pay(@PathVariable long id, @RequestParam(defaultValue = "0") long delayMs) {
        if (delayMs < 0 || delayMs > maxExtraDelay.toMillis()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "delayMs must be between 0 and "
                    + maxExtraDelay.toMillis() + " (sample.payment.max-extra-delay)");
        }
        return payments.pay(id, Duration.ofMillis(delayMs));
    }
}
