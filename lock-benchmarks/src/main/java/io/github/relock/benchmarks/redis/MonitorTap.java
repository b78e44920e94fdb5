package io.github.relock.benchmarks.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.relock.benchmarks.libraries.RedisTarget;

/**
 * Counts the commands clients send, as opposed to those scripts run inside Redis. {@code INFO
 * commandstats} cannot tell them apart; {@code MONITOR} can: a command from a script is shown with
 * {@code [db lua]} where a client's shows its address. MONITOR slows Redis down, so it is attached only
 * during a separate counting pass, never while throughput and latency are measured.
 */
public final class MonitorTap implements AutoCloseable {

    private static final Set<String> HARNESS = Set.of("info", "config", "ping");

    private final Socket socket;
    private final Thread reader;
    private final Map<String, Long> clientCommands = new TreeMap<>(); // guarded by this
    private long scriptCalls; // guarded by this
    private volatile boolean closing;

    private MonitorTap(RedisTarget target) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(target.host(), target.port()), 2000);
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8),
                1 << 16);
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            socket.close();
            throw new IOException("MONITOR answered " + ok);
        }
        reader = new Thread(() -> read(in), "monitor-tap");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts counting; the MONITOR stream is subscribed when this returns. */
    public static MonitorTap attach(RedisTarget target) {
        try {
            return new MonitorTap(target);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("could not attach MONITOR to " + target.uri(), ex);
        }
    }

    private void read(BufferedReader in) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                count(line);
            }
        }
        catch (IOException ex) {
            if (!closing) {
                throw new UncheckedIOException("MONITOR stream broke", ex);
            }
        }
    }

    // +1700000000.123456 [0 127.0.0.1:50312] "evalsha" "..." ...   or   ... [0 lua] "hget" ...
    private void count(String line) {
        int open = line.indexOf('[');
        int close = line.indexOf(']', open);
        int quote = line.indexOf('"', close);
        if (open < 0 || close < 0 || quote < 0) {
            return;
        }
        boolean fromScript = line.startsWith(" lua", line.indexOf(' ', open));
        int end = line.indexOf('"', quote + 1);
        String command = line.substring(quote + 1, end < 0 ? line.length() : end).toLowerCase(Locale.ROOT);
        synchronized (this) {
            if (fromScript) {
                scriptCalls++;
            }
            else if (!HARNESS.contains(command)) {
                clientCommands.merge(command, 1L, Long::sum);
            }
        }
    }

    /** Client commands by name, so far. */
    public synchronized Map<String, Long> clientCommands() {
        return new TreeMap<>(clientCommands);
    }

    public synchronized long clientTotal() {
        return clientCommands.values().stream().mapToLong(Long::longValue).sum();
    }

    public synchronized long scriptCalls() {
        return scriptCalls;
    }

    /** Stops counting; idempotent. */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        try {
            socket.close();
            reader.join(2000);
        }
        catch (IOException ex) {
            // closing anyway
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
