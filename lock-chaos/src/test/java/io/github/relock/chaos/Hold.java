package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * One hold, first acquisition to last release of one owner, from its sections; and when it may claim to
 * be inside the lock. A section covers its time inside: a watchdog one until its release, a fixed-lease
 * one at most until its lease can have ended. The claim is what the sections cover, cut where the holder
 * was told it lost the lock, and where its client was closed (close() stops renewing, as documented).
 */
final class Hold {

    final String id;
    final List<Ev.Section> sections = new ArrayList<>();
    long firstInvoke = Long.MAX_VALUE;
    long firstEnter = Long.MAX_VALUE;
    long lastExit = Long.MIN_VALUE;
    long toldAt = Intervals.FOREVER;
    String toldHow = "";
    long closedAt = Intervals.FOREVER;
    List<long[]> fixedCover = List.of();
    List<long[]> claim = List.of();

    Hold(String id) {
        this.id = id;
    }

    void add(Ev.Section section) {
        sections.add(section);
        firstInvoke = Math.min(firstInvoke, section.invoke());
        lastExit = Math.max(lastExit, section.exit());
        if (section.enter() < firstEnter) {
            firstEnter = section.enter();
        }
    }

    Ev.Section first() {
        return sections.stream().min(java.util.Comparator.comparingLong(Ev.Section::enter)).orElseThrow();
    }

    String key() {
        return first().key();
    }

    String owner() {
        return first().owner();
    }

    int jvm() {
        return first().jvm();
    }

    String client() {
        return first().client();
    }

    long token() {
        return first().token();
    }

    void told(long at, String how) {
        if (at < toldAt) {
            toldAt = at;
            toldHow = how;
        }
    }

    /** Works out the claim once every section, tell and close is known. */
    void finish(Exposures exposures) {
        List<long[]> fixed = new ArrayList<>();
        List<long[]> all = new ArrayList<>();
        for (Ev.Section section : sections) {
            long end = section.exit();
            if (section.leaseMillis() > 0) {
                end = Math.min(end, leaseEndsNoEarlierThan(section, exposures));
                fixed.add(new long[] {section.enter(), end});
            }
            all.add(new long[] {section.enter(), end});
        }
        fixedCover = Intervals.union(fixed);
        claim = Intervals.before(Intervals.union(all), Math.min(toldAt, closedAt));
    }

    /**
     * The earliest the fixed lease of a section can have ended: it started when Redis ran the acquisition,
     * which was after the call and at most the slack before it returned, unless the JVM was frozen meanwhile.
     */
    private long leaseEndsNoEarlierThan(Ev.Section section, Exposures exposures) {
        long started = section.invoke();
        if (exposures.pausedNanos(section.jvm(), section.invoke(), section.enter()) == 0) {
            started = Math.max(started, section.enter() - Timing.nanos(Timing.SLACK_MILLIS));
        }
        return started + Timing.nanos(section.leaseMillis());
    }

    boolean claims() {
        return !claim.isEmpty();
    }

    long claimStart() {
        return claim.get(0)[0];
    }

    long claimEnd() {
        return claim.get(claim.size() - 1)[1];
    }

    /** Whether this is a read hold, which other read holds of its lock may overlap. */
    boolean shared() {
        return first().kind().equals(LockTarget.SHARED_KIND);
    }

    /** Whether two holds are one owner in the lock's eyes (its re-entry), so never a conflict. */
    boolean sameOwner(Hold other) {
        return owner().equals(other.owner()) && !owner().startsWith("unknown-");
    }
}
