package io.github.relock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Child JVM main for {@link ProcessCleanupTest}: starts a redis-server, prints its pid, port and dir, exits on "exit". */
public final class RedisHolderMain {

    private RedisHolderMain() {
    }

    public static void main(String[] args) throws IOException {
        RedisServer server = RedisServer.start(); // deliberately never closed: cleanup is the registry's job
        System.out.println("REDIS " + server.pid() + " " + server.port() + " " + server.dir());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("exit")) {
                System.exit(0);
            }
        }
    }
}
