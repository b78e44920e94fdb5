package io.github.relock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Picks free loopback ports. A port can still be taken between the pick and the bind: callers retry. */
final class Ports {

    /** Redis 6.2 cluster nodes also listen on port + 10000 (the cluster bus); that must exist and be free. */
    static final int CLUSTER_BUS_OFFSET = 10000;

    private static final InetAddress LOOPBACK = loopback();

    private Ports() {
    }

    static int freePort(boolean withClusterBus) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = bindAndRelease(0);
            if (!withClusterBus) {
                return port;
            }
            int bus = port + CLUSTER_BUS_OFFSET;
            if (bus <= 65535 && isFree(bus)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port (with cluster bus: " + withClusterBus + ")");
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1}); // never ::1, servers bind IPv4
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isFree(int port) {
        try {
            bindAndRelease(port);
            return true;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    private static int bindAndRelease(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true); // redis-server binds with SO_REUSEADDR too, so TIME_WAIT is no conflict
            socket.bind(new InetSocketAddress(LOOPBACK, port), 1);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind 127.0.0.1:" + port, e);
        }
    }
}
