package io.github.relock.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.api.sync.RedisCommands;

/** Reads call counts from {@code INFO commandstats}, to count round trips a test caused. */
public final class CommandStats {

    private CommandStats() {
    }

    /** Every command Redis ran, those inside scripts included, less the {@code INFO} calls that read it. */
    public static long allCalls(RedisCommands<String, String> commands) {
        Matcher matcher = Pattern.compile("^cmdstat_([a-z|]+):calls=(\\d+),", Pattern.MULTILINE)
                .matcher(commands.info("commandstats"));
        long calls = 0;
        while (matcher.find()) {
            calls += matcher.group(1).equals("info") ? 0 : Long.parseLong(matcher.group(2));
        }
        return calls;
    }

    public static long calls(RedisCommands<String, String> commands, String command) {
        Pattern line = Pattern.compile("^cmdstat_" + command + ":calls=(\\d+),", Pattern.MULTILINE);
        Matcher matcher = line.matcher(commands.info("commandstats"));
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
