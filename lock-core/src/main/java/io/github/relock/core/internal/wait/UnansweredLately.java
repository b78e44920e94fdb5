package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;

import io.github.relock.core.internal.command.RedisFailures;

/**
 * Remembers, for a moment, that Redis did not answer a subscribe or an opening at one place (the pub/sub
 * connection, a cluster node): each waiter tries again every {@link #RESUBSCRIBE_NANOS}, and
 * without this would open a connection (or wait out a timeout) of its own each time.
 */
public final class UnansweredLately {

    /**
     * How often a waiter that is not subscribed looks at the lock again and subscribes again; an unanswered place
     * is remembered this long.
     */
    public static final long RESUBSCRIBE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** The place of a client's one classic pub/sub connection. */
    static final String CONNECTION = "";

    private record Silence(DataAccessException cause, long at) {
    }

    /** One entry per place: a connection, or a cluster node. */
    private final Map<String, Silence> places = new ConcurrentHashMap<>();

    /** Fails at once if Redis did not answer at {@code place} a moment ago. */
    void check(String place, String what) {
        Silence last = places.get(place);
        if (last != null && System.nanoTime() - last.at() < RESUBSCRIBE_NANOS) {
            throw new RedisConnectionFailureException("Could not " + what + ": the pub/sub connection did not "
                    + "answer a moment ago (" + RedisFailures.describe(last.cause()) + ")", last.cause());
        }
    }

    /** Notes {@code ex} for {@link #check} if Redis did not answer at {@code place}, and returns it. */
    DataAccessException note(String place, DataAccessException ex) {
        if (!RedisFailures.refused(ex)) {
            places.put(place, new Silence(ex, System.nanoTime()));
        }
        return ex;
    }

    /** Redis answered at {@code place}. */
    void answered(String place) {
        places.remove(place);
    }
}
