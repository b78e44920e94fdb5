package io.github.relock.core.internal.kind;

/** Whom of a client's waiters on one lock a release announcement wakes. */
public enum WakeUp {
    /** One of them: one release, one attempt (the exclusive lock). */
    ONE,
    /** The one the announcement names, if it waits here (a fair lock's next in line); all if it names nobody. */
    NAMED,
    /**
     * The ones a read-write lock's release let in, if they wait here (the readers a write release let in, or the
     * writer the last release chose): the announcement lists each with the fencing token of the hold the release
     * gave it, so they take their holds up with no further attempt. All if it lists nobody.
     */
    GIVEN
}
