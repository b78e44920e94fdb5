package io.github.relock.core.internal.kind;

/** Whom of a client's waiters on one lock a release announcement wakes. */
public enum WakeUp {
    /** One of them: one release, one attempt (the exclusive lock). */
    ONE,
    /** All of them: they may all go (the readers of a read-write lock). */
    ALL,
    /** The one the announcement names, if it waits here (a fair lock's next in line); all if it names nobody. */
    NAMED
}
