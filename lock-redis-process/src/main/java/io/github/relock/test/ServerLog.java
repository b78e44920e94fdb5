package io.github.relock.test;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The file a server's stdout and stderr go to, across restarts, and its last lines for failure messages. */
final class ServerLog {

    private final Path file;

    ServerLog(Path file) {
        this.file = file;
    }

    /** Where a process's output goes: appended, so that every run of the server stays in one file. */
    Redirect redirect() {
        return Redirect.appendTo(file.toFile());
    }

    /** The current length: pass it to {@link #tail(long, int)} to see only what came after. */
    long size() {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The last {@code maxLines} lines written after {@code fromOffset}, indented for an exception message. */
    String tail(long fromOffset, int maxLines) {
        try {
            if (!Files.exists(file)) {
                return "    (no output)";
            }
            byte[] bytes = Files.readAllBytes(file);
            int from = (int) Math.min(fromOffset, bytes.length);
            List<String> lines = Arrays.asList(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8)
                    .split("\n"));
            List<String> last = lines.subList(Math.max(0, lines.size() - maxLines), lines.size());
            return "    " + String.join("\n    ", last);
        } catch (IOException e) {
            return "    (cannot read " + file + ": " + e.getMessage() + ")";
        }
    }
}
