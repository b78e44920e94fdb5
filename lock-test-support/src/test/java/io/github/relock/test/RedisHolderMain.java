package io.github.relock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Child JVM main for {@link ProcessCleanupTest}: starts a redis-server, prints its pid, port and dir, exits on
 * "exit". With an argument (an exit grace in ms) it also stops the server in a shutdown hook of its own, 500 ms
 * late, as a Spring context would, and prints whether the server was still running then.
 */
public final class RedisHolderMain {

    private RedisHolderMain() {
    }

    public static void main(String[] args) throws IOException {
        // deliberately never closed on the way out: cleanup is the registry's job
        RedisServer server = args.length == 0 ? RedisServer.start()
                : RedisServer.builder().exitGrace(Duration.ofMillis(Long.parseLong(args[0]))).start();
        if (args.length > 0) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                RedisProcess.sleep(500);
                System.out.println("RUNNING AFTER 500 MS " + server.isRunning());
                server.close();
            }));
        }
        System.out.println("REDIS " + server.pid() + " " + server.port() + " " + server.dir());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("exit")) {
                System.exit(0);
            }
        }
    }
}
