package io.github.relock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Child JVM main for {@link ChildJvmTest}: announces itself, echoes stdin, exits 3 on "exit". */
public final class EchoMain {

    private EchoMain() {
    }

    public static void main(String[] args) throws IOException {
        System.out.println("READY " + String.join(",", args));
        System.err.println("this goes to stderr");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("exit")) {
                System.out.println("BYE");
                System.exit(3);
            }
            System.out.println("ECHO " + line);
        }
    }
}
