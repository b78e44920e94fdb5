package io.github.relock.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code sample.*}: what the sample itself can be tuned with (the lock's own settings are {@code relock.*};
 * {@code sample.embedded-redis.*} is lock-redis-process's {@code EmbeddedRedisProperties}).
 */
@ConfigurationProperties("sample")
public class SampleProperties {

    private final Payment payment = new Payment();

    private final Demo demo = new Demo();

    public Payment getPayment() {
        return payment;
    }

    public Demo getDemo() {
        return demo;
    }

    public static class Payment {

        /** How long the (simulated) card processor takes to charge an order, while the lock is held. */
        private Duration providerDelay = Duration.ofMillis(300);

        /**
         * Upper bound of the {@code delayMs} parameter of {@code POST /orders/{id}/pay}, which makes one
         * payment slower on purpose. Keep it below {@code relock.locks.payments.lease-time}.
         */
        private Duration maxExtraDelay = Duration.ofSeconds(8);

        public Duration getProviderDelay() {
            return providerDelay;
        }

        public void setProviderDelay(Duration providerDelay) {
            this.providerDelay = providerDelay;
        }

        public Duration getMaxExtraDelay() {
            return maxExtraDelay;
        }

        public void setMaxExtraDelay(Duration maxExtraDelay) {
            this.maxExtraDelay = maxExtraDelay;
        }
    }

    public static class Demo {

        /** How many independent lock clients (as separate instances would have) race in --demo. */
        private int clients = 2;

        /** How many threads each client pays the order from. */
        private int threadsPerClient = 16;

        /** The payers start at random moments within this window, like customers clicking Pay. */
        private Duration spread = Duration.ofMillis(1500);

        public int getClients() {
            return clients;
        }

        public void setClients(int clients) {
            this.clients = clients;
        }

        public int getThreadsPerClient() {
            return threadsPerClient;
        }

        public void setThreadsPerClient(int threadsPerClient) {
            this.threadsPerClient = threadsPerClient;
        }

        public Duration getSpread() {
            return spread;
        }

        public void setSpread(Duration spread) {
            this.spread = spread;
        }
    }
}
