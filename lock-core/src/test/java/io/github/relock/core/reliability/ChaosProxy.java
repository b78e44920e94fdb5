package io.github.relock.core.reliability;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on {@code 127.0.0.1} in front of one Redis, that cuts connections on command: armed with
 * a marker, it forwards the next client command that contains the marker, waits for the server's reply
 * to it, swallows the reply and drops the connection. The client then knows the command was sent but
 * not whether it ran — it did.
 *
 * <p>Meant for one command in flight per connection at the time of the cut (the first server bytes
 * after the marked command are taken to be its reply).
 *
 * <p>It can also refuse new connections ({@link #refuseNew}), freeze every connection ({@link #freeze}) or
 * only those that subscribed ({@link #freezePubSub}) or new ones ({@link #freezeNew}), or hold back replies alone
 * ({@link #freezeReplies}).
 */
public final class ChaosProxy implements AutoCloseable {

    private static final byte[] SUBSCRIBE = "SUBSCRIBE".getBytes(StandardCharsets.US_ASCII);

    private volatile int targetPort;
    private final ServerSocket server;
    private final Thread acceptor;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicReference<byte[]> armed = new AtomicReference<>();
    private final AtomicInteger cuts = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Object thaw = new Object();
    private volatile boolean frozen;
    private volatile boolean pubSubFrozen;
    private volatile boolean refusing;
    private volatile boolean repliesFrozen;
    private volatile boolean newFrozen;
    private volatile boolean closed;

    public ChaosProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "chaos-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /**
     * Frozen, nothing passes either way on any connection until thawed, and nothing is closed: Redis seems to
     * take no more calls, as behind a network partition, and what was held back arrives on thaw.
     */
    public void freeze(boolean on) {
        frozen = on;
        if (!on) {
            synchronized (thaw) {
                thaw.notifyAll();
            }
        }
    }

    /**
     * Frozen, a connection that sent a SUBSCRIBE (S- and P- too) passes nothing either way until thawed:
     * a half-dead pub/sub connection, while commands on other connections go on.
     */
    public void freezePubSub(boolean on) {
        pubSubFrozen = on;
        if (!on) {
            synchronized (thaw) {
                thaw.notifyAll();
            }
        }
    }

    /**
     * Replies frozen, commands still reach Redis and run, but no reply comes back until thawed (a partition
     * that falls between a command and its reply).
     */
    public void freezeReplies(boolean on) {
        repliesFrozen = on;
        if (!on) {
            synchronized (thaw) {
                thaw.notifyAll();
            }
        }
    }

    /**
     * New ones frozen, connections accepted from now on pass nothing either way until thawed, while those open
     * go on: a proxy or a server that takes a connection and never answers on it.
     */
    public void freezeNew(boolean on) {
        newFrozen = on;
        if (!on) {
            synchronized (thaw) {
                thaw.notifyAll();
            }
        }
    }

    /** Refusing, every connection accepted is closed at once: new connections fail, open ones go on. */
    public void refuseNew(boolean on) {
        refusing = on;
    }

    private void awaitThaw(Pair pair, boolean reply) {
        synchronized (thaw) {
            while ((frozen || pubSubFrozen && pair.subscribed || newFrozen && pair.bornFrozen || reply && repliesFrozen)
                    && !closed) {
                try {
                    thaw.wait(100);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Connections accepted from now on go to {@code port} (another server); those open stay where they are. */
    public void retarget(int port) {
        targetPort = port;
    }

    /** The next command containing {@code marker} runs, but its reply never arrives: the connection drops. */
    public void cutAfterReplyTo(String marker) {
        armed.set(marker.getBytes(StandardCharsets.UTF_8));
    }

    public boolean isArmed() {
        return armed.get() != null;
    }

    public void disarm() {
        armed.set(null);
    }

    public int cuts() {
        return cuts.get();
    }

    public int connections() {
        return connections.get();
    }

    /** Connections accepted so far, refused ones included. */
    public int accepted() {
        return accepted.get();
    }

    /** Drops every connection open right now, in both directions: clients see a reset and reconnect. */
    public void cutAll() {
        sockets.forEach(ChaosProxy::closeQuietly);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                accepted.incrementAndGet();
                if (refusing) {
                    client.setSoLinger(true, 0); // a reset, as from a server that will not take it
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket();
                try {
                    upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
                }
                catch (IOException ex) {
                    // the server is down (killed, restarting): a client left connected here would wait forever
                    closeQuietly(upstream);
                    closeQuietly(client);
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                connections.incrementAndGet();
                Pair pair = new Pair(client, upstream);
                start(pair::clientToServer, "chaos-proxy-up");
                start(pair::serverToClient, "chaos-proxy-down");
            }
            catch (IOException ex) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private static void start(Runnable pump, String name) {
        Thread thread = new Thread(pump, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** One client connection and its upstream connection. */
    private final class Pair {
        final Socket client;
        final Socket upstream;
        volatile boolean cutOnReply;
        volatile boolean subscribed;
        /** Accepted while new connections were frozen. */
        final boolean bornFrozen = newFrozen;

        Pair(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void clientToServer() {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = client.getInputStream(); OutputStream out = upstream.getOutputStream()) {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    byte[] marker = armed.get();
                    if (marker != null && contains(buffer, n, marker) && armed.compareAndSet(marker, null)) {
                        cutOnReply = true; // set before forwarding: the reply cannot overtake it
                    }
                    if (!subscribed && contains(buffer, n, SUBSCRIBE)) {
                        subscribed = true;
                    }
                    awaitThaw(this, false);
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
            catch (IOException ex) {
                // either side went away
            }
            finally {
                closeBoth();
            }
        }

        void serverToClient() {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = upstream.getInputStream(); OutputStream out = client.getOutputStream()) {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    if (cutOnReply) {
                        cuts.incrementAndGet();
                        return; // the reply is swallowed; finally drops both connections
                    }
                    awaitThaw(this, true);
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
            catch (IOException ex) {
                // either side went away
            }
            finally {
                closeBoth();
            }
        }

        void closeBoth() {
            closeQuietly(client);
            closeQuietly(upstream);
            sockets.remove(client);
            sockets.remove(upstream);
        }
    }

    private static boolean contains(byte[] buffer, int length, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (buffer[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
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
        closed = true;
        freeze(false);
        freezePubSub(false);
        freezeNew(false);
        closeQuietly2(server);
        sockets.forEach(ChaosProxy::closeQuietly);
    }

    private static void closeQuietly2(ServerSocket socket) {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // already closed
        }
    }
}
