package io.github.relock.chaos;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The history's wire format: every event is a record, printed by a client JVM as one stdout line
 * {@code EV <Type> <field> <field> ...} and parsed back by the parent. Fields never contain spaces
 * ({@link #token(String)}); instants are {@link System#nanoTime()}, one clock for every JVM on the machine.
 */
final class Ev {

    static final String PREFIX = "EV ";


    /**
     * One critical section: a programmatic hold level or an annotated method body. {@code leaseMillis} 0:
     * watchdog lease; {@code invoke} when its acquisition was called, {@code enter} when it returned (or the
     * body started), {@code exit} when the release was invoked (or the body ended). Sections of one hold
     * share {@code holdId}; {@code end} is how it ended (ok, lost, closed, error:X, body).
     */
    record Section(int jvm, String client, String owner, String key, long token, long leaseMillis, long invoke,
                   long enter, long exit, int depth, String kind, String holdId, String end, String opId) {
    }

    /** The holder was told it lost the lock: by a listener, by {@code isLost()}, or by an exception. */
    record Told(int jvm, String owner, String key, long token, long at, String how, String holdId) {
    }

    /**
     * One call into the lock API. {@code waitMillis} -1: waits as long as it takes (or not a wait at all);
     * {@code insideHold}: the hold of the same key the calling thread is inside of ("-": none), for an
     * annotated call nested in another.
     */
    record Op(int jvm, String opId, String kind, String key, long invoke, long ret, long waitMillis, String result,
              String insideHold) {
    }

    /** A write of a hold's fencing token to the fenced resource. */
    record Write(String key, String holdId, long token, long at) {
    }

    /** {@code forceUnlock()} of a lock, whoever held it. */
    record Force(int jvm, String key, long invoke, long ret, String result) {
    }

    /**
     * A client was closed; {@code threads}: names of threads still alive with its client id in them right
     * after {@code close()} returned ("-": none); {@code heldKey}: a lock it held at close ("-": none).
     */
    record Closed(int jvm, String client, long invoke, long ret, String threads, String heldKey) {
    }

    /** A fault window, as applied (not as planned): {@code target} is redis, proxy, sentinel or jvmN. */
    record Fault(String kind, String target, long start, long end, String detail) {
    }

    /** What the parent found in Redis after a close ("-": nothing left) or at the end of a run. */
    record Probe(String client, long closedAt, long at, String leftovers) {
    }

    /**
     * Diagnosis, not judged: the lease of a watchdog hold, as its own client records it
     * ({@code HeldLock.leaseExpiresAt()}), lay in the past while its holder was still inside: nothing renewed it.
     */
    record Lapsed(int jvm, String holdId, long at, long millisAgo) {
    }

    /** A driver thread that did not finish its operation when the run stopped. */
    record Stuck(int jvm, String thread, long since, String what) {
    }

    /** The component that says when each kind of event happened: a section when entered, a call when made. */
    private static final Map<Class<?>, String> WHEN = Map.of(Section.class, "enter", Told.class, "at", Op.class,
            "invoke", Write.class, "at", Force.class, "invoke", Closed.class, "invoke", Fault.class, "start",
            Probe.class, "at", Lapsed.class, "at", Stuck.class, "since");

    private static final Map<String, Class<?>> TYPES = Arrays.stream(Ev.class.getDeclaredClasses())
            .filter(Class::isRecord).collect(Collectors.toMap(Class::getSimpleName, Function.identity()));

    private Ev() {
    }

    static String line(Record event) {
        StringBuilder line = new StringBuilder(PREFIX).append(event.getClass().getSimpleName());
        try {
            for (RecordComponent component : event.getClass().getRecordComponents()) {
                line.append(' ').append(token(String.valueOf(component.getAccessor().invoke(event))));
            }
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
        return line.toString();
    }

    /** When an event happened, for putting a history in order. */
    static long instant(Record event) {
        try {
            return (long) event.getClass().getMethod(WHEN.get(event.getClass())).invoke(event);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Parses a line made by {@link #line(Record)}. */
    static Record parse(String line) {
        String[] fields = line.substring(PREFIX.length()).split(" ");
        Class<?> type = TYPES.get(fields[0]);
        if (type == null) {
            throw new IllegalArgumentException("unknown event: " + line);
        }
        RecordComponent[] components = type.getRecordComponents();
        if (fields.length != components.length + 1) {
            throw new IllegalArgumentException("malformed event: " + line);
        }
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            values[i] = value(types[i], fields[i + 1]);
        }
        try {
            Constructor<?> constructor = type.getDeclaredConstructor(types);
            return (Record) constructor.newInstance(values);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** A field as it goes on the line: no spaces, never empty. */
    static String token(String text) {
        return text.isEmpty() ? "-" : text.replace(' ', '_');
    }

    private static Object value(Class<?> type, String field) {
        if (type == int.class) {
            return Integer.parseInt(field);
        }
        if (type == long.class) {
            return Long.parseLong(field);
        }
        if (type == boolean.class) {
            return Boolean.parseBoolean(field);
        }
        return field;
    }
}
