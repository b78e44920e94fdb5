package io.github.relock.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.api.sync.RedisCommands;

/** Reads call counts from {@code INFO commandstats}, to count round trips a test caused. */
public final class CommandStats {

    private CommandStats() {
    }

    public static long calls(RedisCommands<String, String> commands, String command) {
        Pattern line = Pattern.compile("^cmdstat_" + command + ":calls=(\\d+),", Pattern.MULTILINE);
        Matcher matcher = line.matcher(commands.info("commandstats"));
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
