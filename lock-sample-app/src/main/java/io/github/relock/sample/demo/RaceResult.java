package io.github.relock.sample.demo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

import io.github.relock.sample.payments.PaymentService;

/** What one race did, per lock client and in total. */
public final class RaceResult {

    private final long orderId;
    private final int threadsPerClient;
    private final Duration spread;
    private final List<Client> clients;
    private final long paymentsInDatabase;
    private final Duration took;

    RaceResult(long orderId, int threadsPerClient, Duration spread, List<Client> clients, long paymentsInDatabase,
            Duration took) {
        this.orderId = orderId;
        this.threadsPerClient = threadsPerClient;
        this.spread = spread;
        this.clients = List.copyOf(clients);
        this.paymentsInDatabase = paymentsInDatabase;
        this.took = took;
    }

    /** One lock client (one instance of the application) and what its threads got. */
    public static final class Client {

        final String clientId;
        final PaymentService service;
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger paid = new AtomicInteger();
        final AtomicInteger lockBusy = new AtomicInteger();
        final AtomicInteger alreadyPaid = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();

        Client(String clientId, PaymentService service) {
            this.clientId = clientId;
            this.service = service;
        }

        public String clientId() {
            return clientId;
        }
    }

    public long orderId() {
        return orderId;
    }

    public List<Client> clients() {
        return clients;
    }

    public int attempts() {
        return sum(c -> c.attempts.get());
    }

    public int paid() {
        return sum(c -> c.paid.get());
    }

    public int lockBusy() {
        return sum(c -> c.lockBusy.get());
    }

    public int alreadyPaid() {
        return sum(c -> c.alreadyPaid.get());
    }

    public int failed() {
        return sum(c -> c.failed.get());
    }

    public long paymentsInDatabase() {
        return paymentsInDatabase;
    }

    public Duration took() {
        return took;
    }

    /** 0: exactly one payment recorded; 1: any other number; 2: one, but some payment failed unexpectedly. */
    public int exitCode() {
        if (paymentsInDatabase != 1) {
            return 1;
        }
        return failed() > 0 ? 2 : 0;
    }

    private int sum(ToIntFunction<Client> counter) {
        return clients.stream().mapToInt(counter).sum();
    }

    /** The table the demo prints. */
    public String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%nRace demo: %d lock clients x %d threads pay order %d; each payer starts "
                + "at a random moment within %d ms%n", clients.size(), threadsPerClient, orderId, spread.toMillis()));
        for (int i = 0; i < clients.size(); i++) {
            out.append(String.format(Locale.ROOT, "  instance %d: lock client %s%n", i + 1, clients.get(i).clientId));
        }
        out.append(System.lineSeparator());
        String format = "%-26s" + "%13s".repeat(clients.size()) + "%9s%n";
        Object[] header = new Object[clients.size() + 2];
        header[0] = "";
        for (int i = 0; i < clients.size(); i++) {
            header[i + 1] = "instance " + (i + 1);
        }
        header[clients.size() + 1] = "total";
        out.append(String.format(Locale.ROOT, format, header));
        row(out, format, "attempts", c -> c.attempts.get());
        row(out, format, "paid", c -> c.paid.get());
        row(out, format, "rejected (lock busy)", c -> c.lockBusy.get());
        row(out, format, "rejected (already paid)", c -> c.alreadyPaid.get());
        if (failed() > 0) {
            row(out, format, "failed otherwise", c -> c.failed.get());
        }
        String blank = " ".repeat(13 * clients.size());
        out.append(String.format(Locale.ROOT, "%-26s%s%9d   %s%n", "payments in the database", blank, paymentsInDatabase,
                paymentsInDatabase == 1 ? "OK: exactly one" : "WRONG: must be exactly 1"));
        out.append(String.format(Locale.ROOT, "%-26s%s%9s%n", "time taken", blank, RaceDemo.seconds(took)));
        return out.toString();
    }

    private void row(StringBuilder out, String format, String label, ToIntFunction<Client> counter) {
        Object[] cells = new Object[clients.size() + 2];
        cells[0] = label;
        for (int i = 0; i < clients.size(); i++) {
            cells[i + 1] = counter.applyAsInt(clients.get(i));
        }
        cells[clients.size() + 1] = sum(counter);
        out.append(String.format(Locale.ROOT, format, cells));
    }
}
