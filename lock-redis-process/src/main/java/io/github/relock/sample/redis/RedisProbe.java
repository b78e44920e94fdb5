package io.github.relock.sample.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** Asks whether a Redis answers at a host and port: one {@code PING} over a plain socket. */
final class RedisProbe {

    private RedisProbe() {
    }

    /**
     * The first line of the reply to {@code PING} ({@code +PONG}, or an error such as {@code -NOAUTH ...}
     * from a Redis that wants a password: it answers all the same), or {@code null} if nothing accepts
     * connections there.
     *
     * @throws IOException if something accepts the connection but does not answer like Redis
     */
    static @Nullable String ping(String host, int port, Duration timeout) throws IOException {
        try (Socket socket = new Socket()) {
            int millis = (int) Math.max(1, timeout.toMillis());
            try {
                socket.connect(new InetSocketAddress(host, port), millis);
            }
            catch (ConnectException ex) {
                return null; // refused: nobody listens there
            }
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String reply = readLine(socket.getInputStream());
            if (reply.isEmpty() || (reply.charAt(0) != '+' && reply.charAt(0) != '-')) {
                throw new IOException("something listens on " + host + ":" + port + " but does not answer PING like "
                        + "Redis (it said '" + reply + "')");
            }
            return reply;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n' && line.length() < 200; c = in.read()) {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
