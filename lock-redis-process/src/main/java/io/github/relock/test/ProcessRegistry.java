package io.github.relock.test;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The one place that knows every child process started here (redis-server, Sentinel, cluster nodes, the
 * test fixtures' child JVMs) and every temp directory they use, so that nothing outlives the JVM.
 *
 * <p>Two layers: a JVM shutdown hook kills what is still alive on a normal exit, and a tiny {@code sh}
 * "reaper" process, fed the pids over its stdin, kills them when that pipe closes, which also happens
 * when this JVM is killed with SIGKILL or crashes (no shutdown hook runs then).
 */
final class ProcessRegistry {

    // each live process with its exit grace
    private static final Map<Process, Duration> LIVE = new ConcurrentHashMap<>();
    private static final Set<Path> TEMP_DIRS = ConcurrentHashMap.newKeySet();

    // Reads "+pid" / "-pid" lines; on EOF (this JVM gone) SIGKILLs the pids still registered.
    private static final String REAPER_SCRIPT = String.join("\n",
            "trap '' INT HUP",
            "pids=' '",
            "while IFS= read -r line; do",
            "  case \"$line\" in",
            "    +*) pids=\"$pids${line#+} \" ;;",
            "    -*) p=${line#-}",
            "        case \"$pids\" in *\" $p \"*) pids=\"${pids%% $p *} ${pids#* $p }\" ;; esac ;;",
            "  esac",
            "done",
            "set -- $pids",
            "[ $# -gt 0 ] && kill -9 \"$@\" 2>/dev/null",
            "exit 0");

    /** Every temp directory made here starts with this. */
    static final String TEMP_PREFIX = "relock-";
    private static final String OWNER_FILE = ".relock-owner-pid";

    private static boolean swept;
    private static @Nullable OutputStream reaperInput;
    private static boolean reaperTried;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessRegistry::cleanUp, "relock-process-cleanup"));
    }

    private ProcessRegistry() {
    }

    /** Starts the process and registers it, so it is killed at JVM exit if nobody stopped it before. */
    static Process start(ProcessBuilder builder) throws IOException {
        return start(builder, Duration.ZERO);
    }

    /**
     * {@link #start(ProcessBuilder)}, but at a normal JVM exit the process gets {@code exitGrace} to end first:
     * its owner may be stopping it in another shutdown hook (a Spring context closing) that runs concurrently.
     */
    static Process start(ProcessBuilder builder, Duration exitGrace) throws IOException {
        Process process = builder.start();
        LIVE.put(process, exitGrace);
        tellReaper("+" + process.pid());
        process.onExit().thenRun(() -> {
            LIVE.remove(process);
            tellReaper("-" + process.pid());
        });
        return process;
    }

    /**
     * Creates a temp directory that is deleted at JVM exit unless {@link #delete(Path)} ran before. It holds
     * an owner file with this JVM's pid, so that a later JVM can delete it if this one is killed first.
     */
    static Path createTempDir(String prefix) {
        sweepOnce();
        try {
            Path dir = Files.createTempDirectory(prefix);
            TEMP_DIRS.add(dir);
            Files.writeString(dir.resolve(OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory", e);
        }
    }

    // A JVM that was SIGKILLed ran no shutdown hook: delete the directories it left whose owner is gone.
    private static synchronized void sweepOnce() {
        if (!swept) {
            swept = true;
            sweepStaleTempDirs();
        }
    }

    static void sweepStaleTempDirs() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> entries = Files.list(tmp)) {
            entries.filter(dir -> dir.getFileName().toString().startsWith(TEMP_PREFIX))
                    .filter(dir -> Files.isRegularFile(dir.resolve(OWNER_FILE)))
                    .filter(ProcessRegistry::ownerIsGone)
                    .forEach(ProcessRegistry::delete);
        } catch (IOException | UncheckedIOException ignored) {
            // best effort
        }
    }

    private static boolean ownerIsGone(Path dir) {
        try {
            long owner = Long.parseLong(Files.readString(dir.resolve(OWNER_FILE)).trim());
            return owner != ProcessHandle.current().pid()
                    && ProcessHandle.of(owner).map(handle -> !handle.isAlive()).orElse(true);
        } catch (IOException | NumberFormatException e) {
            return false; // not ours to judge
        }
    }

    /** Deletes a directory tree now; failures are ignored (it is only scratch space). */
    static void delete(Path dir) {
        TEMP_DIRS.remove(dir);
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: a leftover temp dir is harmless
        }
    }

    private static synchronized void tellReaper(String line) {
        if (!reaperTried) {
            reaperTried = true;
            reaperInput = startReaper();
        }
        if (reaperInput == null) {
            return;
        }
        try {
            reaperInput.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            reaperInput.flush();
        } catch (IOException e) {
            reaperInput = null; // the reaper died; the shutdown hook still covers normal exits
        }
    }

    private static @Nullable OutputStream startReaper() {
        try {
            Process reaper = new ProcessBuilder("sh", "-c", REAPER_SCRIPT)
                    .redirectOutput(Redirect.DISCARD)
                    .redirectError(Redirect.DISCARD)
                    .start();
            return reaper.getOutputStream();
        } catch (IOException e) {
            return null; // no POSIX shell (Windows): rely on the shutdown hook alone
        }
    }

    private static void cleanUp() {
        long started = System.nanoTime();
        List<Map.Entry<Process, Duration>> live = new ArrayList<>(LIVE.entrySet());
        for (Map.Entry<Process, Duration> entry : live) {
            awaitExit(entry.getKey(), entry.getValue().toNanos() - (System.nanoTime() - started));
        }
        List<Process> victims = live.stream().map(Map.Entry::getKey).toList();
        victims.forEach(Process::destroyForcibly);
        for (Process process : victims) {
            if (awaitExit(process, TimeUnit.SECONDS.toNanos(2))) {
                tellReaper("-" + process.pid()); // gone: the reaper must not kill a reused pid
            }
        }
        synchronized (ProcessRegistry.class) {
            if (reaperInput != null) {
                try {
                    reaperInput.close(); // EOF: the reaper kills what is left and exits
                } catch (IOException ignored) {
                    // it is gone already
                }
                reaperInput = null;
            }
        }
        new ArrayList<>(TEMP_DIRS).forEach(ProcessRegistry::delete);
    }

    private static boolean awaitExit(Process process, long nanos) {
        try {
            return process.waitFor(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
