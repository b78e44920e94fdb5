package io.github.relock.sample.web;

import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.relock.sample.SampleProperties;
import io.github.relock.sample.orders.Order;
import io.github.relock.sample.orders.OrderNotFoundException;
import io.github.relock.sample.orders.OrderRepository;
import io.github.relock.sample.orders.Payment;
import io.github.relock.sample.payments.PaymentReceipt;
import io.github.relock.sample.payments.PaymentService;

/**
 * <pre>
 * POST /orders                  {"customer": "ada", "amount": 42.50}  → 201, the order
 * POST /orders/{id}/pay         → 200 receipt; 409 if already paid or another payment of it holds the lock
 * POST /orders/{id}/pay?delayMs=5000   the same, with the card processor 5 s slower (up to sample.payment.max-extra-delay)
 * GET  /orders/{id}             → the order with its payments
 * </pre>
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

    private final OrderRepository orders;
    private final PaymentService payments;
    private final SampleProperties properties;

    public OrderController(OrderRepository orders, PaymentService payments, SampleProperties properties) {
        this.orders = orders;
        this.payments = payments;
        this.properties = properties;
    }

    /** A new order. */
    public record NewOrder(@Nullable String customer, @Nullable BigDecimal amount) {
    }

    /** An order with its payments: one at most, if the lock did its job. */
    public record OrderView(long id, String customer, BigDecimal amount, Order.Status status, Instant createdAt,
            List<Payment> payments) {
    }

    @PostMapping
    public ResponseEntity<OrderView> create(@RequestBody NewOrder request) {
        String customer = request.customer();
        BigDecimal amount = request.amount();
        if (customer == null || customer.isBlank() || customer.length() > 100) {
            throw new BadRequestException("customer must be a name of 1 to 100 characters");
        }
        if (amount == null || amount.signum() <= 0 || amount.scale() > 2 || amount.precision() - amount.scale() > 10) {
            throw new BadRequestException("amount must be positive, with at most 2 decimals and 10 digits before them");
        }
        Order order = orders.create(customer.strip(), amount);
        return ResponseEntity.created(URI.create("/orders/" + order.id())).body(view(order));
    }

    @GetMapping("/{id}")
    public OrderView get(@PathVariable long id) {
        return view(orders.find(id).orElseThrow(() -> new OrderNotFoundException(id)));
    }

    @PostMapping("/{id}/pay")
    public PaymentReceipt pay(@PathVariable long id, @RequestParam(defaultValue = "0") long delayMs) {
        Duration max = properties.getPayment().getMaxExtraDelay();
        if (delayMs < 0 || delayMs > max.toMillis()) {
            throw new BadRequestException("delayMs must be between 0 and " + max.toMillis()
                    + " (sample.payment.max-extra-delay, kept below the lock's lease)");
        }
        // read outside the lock only to know which order: PaymentService reads it again under the lock
        Order order = orders.find(id).orElseThrow(() -> new OrderNotFoundException(id));
        return delayMs == 0 ? payments.pay(order) : payments.pay(order, Duration.ofMillis(delayMs));
    }

    private OrderView view(Order order) {
        return new OrderView(order.id(), order.customer(), order.amount(), order.status(), order.createdAt(),
                orders.payments(order.id()));
    }
}
