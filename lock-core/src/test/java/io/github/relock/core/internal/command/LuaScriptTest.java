package io.github.relock.core.internal.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * What each call of a lock's scripts makes before it runs: Redis runs a script's whole text on every EVALSHA, so
 * each function defined at its top level (its preludes') is made anew each time, whichever path the call takes.
 */
class LuaScriptTest {

    /** A function defined at a script's top level, as the preludes define theirs. */
    private static final Pattern TOP_LEVEL_FUNCTION = Pattern.compile("^local function (\\w+)", Pattern.MULTILINE);

    @Test
    void aPlainLocksPairMakesOnlyTheFunctionsItsCommonPathNeeds() {
        // the turns' functions are made by turns() only when a call meets turns; no fair lock's line
        for (LuaScript<?> script : List.of(LuaScript.ACQUIRE, LuaScript.ACQUIRE.onCluster())) {
            assertThat(topLevelFunctions(script)).as(script.name()).containsExactly("announce", "parse_fence",
                    "turns");
        }
        for (LuaScript<?> script : List.of(LuaScript.RELEASE, LuaScript.RELEASE.onCluster())) {
            assertThat(topLevelFunctions(script)).as(script.name()).containsExactly("announce", "parse_fence",
                    "read_ending", "turns");
        }
    }

    @Test
    void aFairLocksScriptsCarryItsLineAndNotThePlainLocksTurns() {
        assertThat(topLevelFunctions(LuaScript.FAIR_ACQUIRE)).as("acquire").containsExactly("announce",
                "parse_fence", "line_now", "line_head", "line_join", "line_leave");
        for (LuaScript<?> script : List.of(LuaScript.FAIR_RELEASE, LuaScript.FAIR_TRANSFER)) {
            assertThat(topLevelFunctions(script)).as(script.name()).containsExactly("announce", "parse_fence",
                    "read_ending", "line_now", "line_head", "line_join", "line_leave");
        }
    }

    private static List<String> topLevelFunctions(LuaScript<?> script) {
        List<String> names = new ArrayList<>();
        Matcher matcher = TOP_LEVEL_FUNCTION.matcher(script.getScriptAsString());
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }
}
