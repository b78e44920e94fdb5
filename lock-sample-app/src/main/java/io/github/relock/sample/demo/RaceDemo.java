package io.github.relock.sample.demo;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.stereotype.Component;

import io.github.relock.core.RedisLockClient;
import io.github.relock.sample.SampleProperties;
import io.github.relock.sample.orders.Order;
import io.github.relock.sample.orders.OrderRepository;
import io.github.relock.sample.payments.OrderAlreadyPaidException;
import io.github.relock.sample.payments.PaymentService;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * {@code --demo}: creates an order, starts a second instance of this application in the same JVM
 * (its own Spring context, so its own lock client with its own client id and Redis connections, on the
 * same Redis and database), and has 16 threads in each instance pay that order at nearly the same
 * moment through {@link PaymentService#pay(Order)}. Prints what happened; the exit code is 0 only if
 * the database holds exactly one payment for the order (1 if it holds any other number, 2 if a payment
 * failed in an unexpected way).
 */
@Component
public class RaceDemo implements ApplicationRunner, ExitCodeGenerator {

    /** The command-line option: {@code --demo}. */
    public static final String OPTION = "demo";

    private static final Logger log = LoggerFactory.getLogger(RaceDemo.class);

    /** What the other instances inherit from this one, so that they share its Redis and database. */
    private static final List<String> INHERITED = List.of("spring.data.redis.", "spring.datasource.", "relock.", "sample.",
            "logging.");

    private final OrderRepository orders;
    private final PaymentService payments;
    private final RedisLockClient lockClient;
    private final SampleProperties properties;
    private final ConfigurableEnvironment environment;

    private volatile int exitCode;

    private volatile @Nullable RaceResult result;

    public RaceDemo(OrderRepository orders, PaymentService payments, RedisLockClient lockClient,
            SampleProperties properties, ConfigurableEnvironment environment) {
        this.orders = orders;
        this.payments = payments;
        this.lockClient = lockClient;
        this.properties = properties;
        this.environment = environment;
    }

    /** Whether the command line asks for the demo. */
    public static boolean requested(String... args) {
        return Arrays.asList(args).contains("--" + OPTION);
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        if (!args.containsOption(OPTION)) {
            return;
        }
        RaceResult race = race();
        result = race;
        System.out.println(race.table());
        exitCode = race.exitCode();
    }

    @Override
    public int getExitCode() {
        return exitCode;
    }

    /** The last race's result, or {@code null} if none ran. */
    public @Nullable RaceResult getResult() {
        return result;
    }

    /** Runs the race once. */
    public RaceResult race() throws InterruptedException {
        SampleProperties.Demo demo = properties.getDemo();
        int clients = Math.max(1, demo.getClients());
        int threads = Math.max(1, demo.getThreadsPerClient());
        Order order = orders.create("race-demo", new BigDecimal("19.99"));
        log.info("Race demo: {} lock clients x {} threads pay order {}", clients, threads, order.id());

        List<ConfigurableApplicationContext> others = new ArrayList<>();
        try {
            List<RaceResult.Client> racers = new ArrayList<>();
            racers.add(new RaceResult.Client(lockClient.getClientId(), payments));
            for (int i = 1; i < clients; i++) {
                ConfigurableApplicationContext other = SecondInstance.start(environment, INHERITED);
                others.add(other);
                racers.add(new RaceResult.Client(other.getBean(RedisLockClient.class).getClientId(),
                        other.getBean(PaymentService.class)));
            }
            long started = run(order, racers, threads, demo.getSpread());
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            long recorded = orders.countPayments(order.id());
            return new RaceResult(order.id(), threads, demo.getSpread(), racers, recorded, took);
        }
        finally {
            others.forEach(ConfigurableApplicationContext::close);
        }
    }

    /** Starts every payer at once (each after its own random delay within {@code spread}); returns the start time. */
    private static long run(Order order, List<RaceResult.Client> racers, int threads, Duration spread)
            throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(racers.size() * threads);
        CountDownLatch ready = new CountDownLatch(racers.size() * threads);
        CountDownLatch go = new CountDownLatch(1);
        for (RaceResult.Client racer : racers) {
            for (int t = 0; t < threads; t++) {
                pool.execute(() -> {
                    ready.countDown();
                    try {
                        go.await();
                        long jitter = spread.toMillis() > 0 ? ThreadLocalRandom.current().nextLong(spread.toMillis()) : 0;
                        Thread.sleep(jitter);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    racer.attempts.incrementAndGet();
                    try {
                        racer.service.pay(order);
                        racer.paid.incrementAndGet();
                    }
                    catch (LockNotAcquiredException ex) {
                        racer.lockBusy.incrementAndGet();
                    }
                    catch (OrderAlreadyPaidException ex) {
                        racer.alreadyPaid.incrementAndGet();
                    }
                    catch (RuntimeException ex) {
                        if (racer.failed.incrementAndGet() == 1) {
                            log.warn("A payment failed unexpectedly", ex);
                        }
                        else {
                            log.warn("A payment failed unexpectedly: {}", ex.toString());
                        }
                    }
                });
            }
        }
        ready.await();
        long started = System.nanoTime();
        go.countDown();
        pool.shutdown();
        if (!pool.awaitTermination(2, TimeUnit.MINUTES)) {
            pool.shutdownNow();
            throw new IllegalStateException("The race did not finish within 2 minutes");
        }
        return started;
    }

    static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.2f s", duration.toNanos() / 1e9);
    }
}
