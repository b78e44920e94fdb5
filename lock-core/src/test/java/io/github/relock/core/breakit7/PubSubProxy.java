package io.github.relock.core.breakit7;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of one Redis, for attacks on the pub/sub connection alone:
 * <ul>
 * <li>{@link #cutNew}: every connection accepted from now on is closed at once (new pub/sub connections
 * fail, the command connection opened before keeps working);</li>
 * <li>{@link #freezePubSub}: a connection that sent SUBSCRIBE forwards nothing, either way, until thawed (a
 * half-dead connection: commands on it time out, and run once it thaws).</li>
 * </ul>
 */
final class PubSubProxy implements AutoCloseable {

    private static final byte[] SUBSCRIBE = "SUBSCRIBE".getBytes(StandardCharsets.US_ASCII);

    private final int targetPort;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    final AtomicInteger accepted = new AtomicInteger();
    volatile boolean cutNew;
    volatile boolean frozen;
    private final Object thaw = new Object();

    PubSubProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "bk7-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    void cutNew(boolean on) {
        cutNew = on;
    }

    void freezePubSub(boolean on) {
        frozen = on;
        if (!on) {
            synchronized (thaw) {
                thaw.notifyAll();
            }
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                accepted.incrementAndGet();
                if (cutNew) {
                    client.setSoLinger(true, 0);
                    client.close();
                    continue;
                }
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                AtomicBoolean pubSub = new AtomicBoolean();
                start(() -> pump(client, upstream, pubSub, true));
                start(() -> pump(upstream, client, pubSub, false));
            }
            catch (IOException ex) {
                // closed, or the server is gone
            }
        }
    }

    private void pump(Socket from, Socket to, AtomicBoolean pubSub, boolean up) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (up && contains(buffer, n, SUBSCRIBE)) {
                    pubSub.set(true);
                }
                while (frozen && pubSub.get()) {
                    synchronized (thaw) {
                        thaw.wait(50);
                    }
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        }
        catch (IOException | InterruptedException ex) {
            // either side went away
        }
        finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static boolean contains(byte[] buffer, int length, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (Character.toUpperCase(buffer[i + j]) != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void start(Runnable pump) {
        Thread thread = new Thread(pump, "bk7-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // already closed
        }
    }

    @Override
    public void close() {
        frozen = false;
        synchronized (thaw) {
            thaw.notifyAll();
        }
        try {
            server.close();
        }
        catch (IOException ex) {
            // already closed
        }
        sockets.forEach(PubSubProxy::closeQuietly);
    }
}
