package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.github.relock.core.reliability.FencedResource;
import io.github.relock.core.reliability.History;

/**
 * What a fenced resource would have made of the run: every grant and every token write, replayed in time
 * order into lock-core's {@link FencedResource}; and lock-core's raw {@link History} sweep over the holds
 * (every overlap in time, before any rule). Figures for the report: the checkers judge the history.
 */
final class FencedReplay {

    /** The figures. */
    record Figures(long writes, long staleRefused, long staleAccepted, long currentRefused, History.Sweep raw) {
    }

    private FencedReplay() {
    }

    static Figures replay(ChaosHistory history, Holds holds) {
        record Step(long at, Runnable apply) {
        }
        FencedResource resource = new FencedResource();
        History raw = new History();
        List<Step> steps = new ArrayList<>();
        for (List<Hold> keyHolds : holds.byKey().values()) {
            for (Hold hold : keyHolds) {
                steps.add(new Step(hold.firstEnter, () -> resource.granted(hold.key(), hold.id)));
                raw.record("jvm" + hold.jvm(), hold.owner(), hold.key(), hold.token(), hold.firstEnter,
                        Math.max(hold.firstEnter, hold.lastExit));
            }
        }
        for (Ev.Write write : history.all(Ev.Write.class)) {
            steps.add(new Step(write.at(), () -> resource.write(write.key(), write.holdId(), write.token(), 0)));
        }
        steps.sort(Comparator.comparingLong(Step::at));
        steps.forEach(step -> step.apply().run());
        return new Figures(resource.accepted() + resource.staleRefused() + resource.currentRefused(),
                resource.staleRefused(), resource.staleAccepted(), resource.currentRefused(), raw.sweep());
    }
}
