package io.github.relock.sample.payments;

import java.time.Duration;

import org.springframework.stereotype.Component;

import io.github.relock.sample.SampleProperties;
import io.github.relock.sample.orders.Order;

/**
 * Stands in for a card processor: charging takes {@code sample.payment.provider-delay}, plus any extra
 * delay a caller asks for to make one payment slow on purpose. Charging twice is exactly the bug the lock
 * prevents.
 */
@Component
public class PaymentGateway {

    private final SampleProperties properties;

    public PaymentGateway(SampleProperties properties) {
        this.properties = properties;
    }

    public void charge(Order order, Duration extraDelay) {
        try {
            Thread.sleep(properties.getPayment().getProviderDelay().plus(extraDelay).toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while charging order " + order.id(), ex);
        }
    }
}
