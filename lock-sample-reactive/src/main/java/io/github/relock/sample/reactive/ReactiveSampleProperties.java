package io.github.relock.sample.reactive;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code sample.*}: what the reactive sample itself can be tuned with (the locks' settings are {@code relock.*}).
 *
 * @param payment the simulated card processor
 * @param reindex the per-tenant reindex job
 */
@ConfigurationProperties("sample")
public record ReactiveSampleProperties(@DefaultValue Payment payment, @DefaultValue Reindex reindex) {

    /**
     * {@code sample.payment.*}.
     *
     * @param providerDelay how long the card processor takes to charge an order, while the lock is held
     * @param maxExtraDelay upper bound of {@code ?delayMs=} on {@code POST /orders/{id}/pay}; keep it below the
     *                      payments lease
     */
    public record Payment(@DefaultValue("300ms") Duration providerDelay, @DefaultValue("8s") Duration maxExtraDelay) {
    }

    /**
     * {@code sample.reindex.*}.
     *
     * @param stepDelay time between two progress events of a job
     * @param steps     steps of a job when the request does not say ({@code ?steps=})
     * @param maxSteps  most steps a request may ask for
     */
    public record Reindex(@DefaultValue("1s") Duration stepDelay, @DefaultValue("10") int steps,
            @DefaultValue("60") int maxSteps) {
    }
}
