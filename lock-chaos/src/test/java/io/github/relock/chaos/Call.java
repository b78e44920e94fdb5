package io.github.relock.chaos;

/**
 * One call of an annotated method, passed as an argument so that the body can report it: the call's id
 * and invoke instant, how long the body works, and which annotated call it nests on the same key.
 *
 * @param parentHoldId the hold of the call this one is nested in, or null
 */
public record Call(int jvm, String opId, long invoke, long workMillis, Kind nest, long innerWorkMillis,
                   String parentHoldId) {

    /** The annotated methods. */
    public enum Kind {
        NONE, SYNC, LEASED, ASYNC
    }

    /** The call nested in this one's body, on the same key. */
    Call inner(String holdId) {
        return new Call(jvm, Ids.op(jvm), System.nanoTime(), innerWorkMillis, Kind.NONE, 0, holdId);
    }
}
