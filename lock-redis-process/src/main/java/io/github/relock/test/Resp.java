package io.github.relock.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A minimal RESP2 client: one command per fresh socket. Used to drive and probe processes (readiness,
 * cluster and Sentinel set-up, {@link RedisServer#command(String...)}) independently of Lettuce, so a
 * killed or paused server never leaves a half-used connection behind.
 *
 * <p>Replies: simple and bulk strings as {@link String}, integers as {@link Long}, arrays as {@link List},
 * nil as {@code null}; an error reply throws {@link ErrorReply}.
 */
final class Resp {

    /** A {@code -ERR ...} style reply. */
    static final class ErrorReply extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    private Resp() {
    }

    /** One command on a fresh connection, after {@code AUTH password} on it if a password is given. */
    static @Nullable Object call(String host, int port, @Nullable String password, Duration timeout, String... args)
            throws IOException {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), (int) Math.min(timeout.toMillis(), 1000));
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            if (password != null) {
                out.write(encode("AUTH", password));
            }
            out.write(encode(args));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null) {
                read(in); // +OK; a wrong password throws ErrorReply
            }
            return read(in);
        }
    }

    /** Renders a reply for test assertions: arrays (also nested) as lines joined by {@code "\n"}. */
    static @Nullable String format(@Nullable Object reply) {
        if (reply == null) {
            return null;
        }
        if (reply instanceof List<?> list) {
            List<String> lines = new ArrayList<>();
            for (Object element : list) {
                String text = format(element);
                lines.add(text == null ? "" : text);
            }
            return String.join("\n", lines);
        }
        return reply.toString();
    }

    /** A field of an {@code INFO} reply, e.g. {@code redis_version}; "" if it has none. */
    static String infoField(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "";
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        writeAscii(buffer, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buffer, "$" + bytes.length + "\r\n");
            buffer.writeBytes(bytes);
            writeAscii(buffer, "\r\n");
        }
        return buffer.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream buffer, String text) {
        buffer.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static @Nullable Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed before a reply");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length) {
                    throw new EOFException("connection closed inside a bulk reply");
                }
                readLine(in); // trailing CRLF
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<@Nullable Object> elements = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    elements.add(read(in));
                }
                return elements;
            }
            default:
                throw new IOException("unexpected RESP type '" + (char) type + "' followed by " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                throw new EOFException("connection closed inside a reply");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }
}
