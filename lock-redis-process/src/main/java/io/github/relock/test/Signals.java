package io.github.relock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals to a process by pid with the {@code kill} command (the JDK can only SIGTERM/SIGKILL). */
final class Signals {

    private Signals() {
    }

    /** SIGSTOP: the process freezes (no CPU, sockets stay open) until {@link #cont(long)}. */
    static void stop(long pid) {
        send("STOP", pid);
        awaitState(pid, 'T'); // delivery is asynchronous; callers expect a frozen process on return
    }

    /** SIGCONT: a stopped process runs again. */
    static void cont(long pid) {
        send("CONT", pid);
    }

    /** SIGKILL. */
    static void kill(long pid) {
        send("KILL", pid);
    }

    private static void send(String signal, long pid) {
        String command = "kill -" + signal + " " + pid;
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within 5 s");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException(command + " failed (exit " + kill.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(command + " could not run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(command + " interrupted", e);
        }
    }

    // Linux only (/proc); elsewhere the signal is trusted to land within microseconds.
    private static void awaitState(long pid, char state) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (Files.isReadable(stat) && System.nanoTime() < deadline) {
            try {
                String content = Files.readString(stat);
                int afterName = content.lastIndexOf(')'); // the command name may contain spaces
                if (afterName < 0 || afterName + 2 >= content.length() || content.charAt(afterName + 2) == state) {
                    return;
                }
                Thread.sleep(1);
            } catch (IOException e) {
                return; // process gone
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
