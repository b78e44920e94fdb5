package io.github.relock.spring.internal;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.github.relock.spring.InvalidLockKeyException;

/**
 * Turns what a key expression evaluated to into the text of a lock name, refusing every value whose text
 * would not stand for the thing it names: {@code null}, blank, and objects whose {@code toString()} is
 * Object's own ({@code Order@75504cef}: a different lock for every instance, so calls would never exclude
 * each other). Arrays are refused for the same reason.
 */
final class LockKeyValues {

    /** Whether a class's toString() is Object's identity string, looked up once per class. */
    private static final ClassValue<Boolean> IDENTITY_TO_STRING = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("toString").getDeclaringClass() == Object.class;
            }
            catch (NoSuchMethodException ex) {
                return true; // an interface type: no toString of its own
            }
        }
    };

    private LockKeyValues() {
    }

    /**
     * The key text for this call.
     *
     * @throws InvalidLockKeyException if the value cannot name a lock; the message says what to write instead
     */
    static String text(@Nullable Object value, String expression, LockDefinition definition) {
        String property = expression;
        if (value instanceof Optional<?> optional) {
            if (optional.isEmpty()) {
                throw invalid(expression, definition, "evaluated to an empty Optional for this call, so there is no "
                        + "lock to take");
            }
            value = optional.get(); // Optional[42] names order 42, as 42 does: both calls must take one lock
            property = expression + ".get()";
        }
        if (value == null) {
            throw invalid(expression, definition, "evaluated to null for this call, so there is no lock to take");
        }
        String problem = identityProblem(value, expression, property, null);
        if (problem != null) {
            throw invalid(expression, definition, "evaluated to " + problem);
        }
        String text;
        try {
            text = value.toString();
        }
        catch (RuntimeException | StackOverflowError ex) { // a lazy proxy without its session, a structure holding itself
            throw new InvalidLockKeyException(expression, "Key expression '" + expression + "' of @DistributedLock on "
                    + definition.describeMethod() + " evaluated to a " + value.getClass().getName() + " whose toString() "
                    + "failed (" + ex + "); the method was not run", ex);
        }
        if (text == null || text.isBlank()) {
            throw invalid(expression, definition, "evaluated to a blank string for this call, so there is no lock to take");
        }
        return text;
    }

    /**
     * Why the value's text would be an identity, or null if it is a real value.
     *
     * @param property the expression to suggest with {@code .id} appended: the key, or a projection of it
     * @param seen     the collections and maps looked into already, or null at the top
     */
    private static @Nullable String identityProblem(Object value, String expression, String property,
            @Nullable Set<Object> seen) {
        Class<?> type = value.getClass();
        if (type.isArray()) {
            return "an array (" + type.getComponentType().getName() + "[]), whose toString() is its identity, so "
                    + "every call would lock a key of its own. Lock on one element, or on all of them with "
                    + "T(java.util.Arrays).toString(" + expression + ") (or use keys = {...} for several locks)";
        }
        if (value instanceof Optional<?> optional) {
            return optional.isPresent() ? identityProblem(optional.get(), expression, property + ".get()", seen)
                    : null;
        }
        if (value instanceof Collection<?> || value instanceof Map<?, ?>) {
            Set<Object> visited = seen != null ? seen : Collections.newSetFromMap(new IdentityHashMap<>());
            if (!visited.add(value)) {
                return null; // it holds itself: looked into already, and looking again would never end
            }
            if (value instanceof Collection<?> collection) {
                return firstProblem(collection, expression, property + ".![", visited);
            }
            Map<?, ?> map = (Map<?, ?>) value;
            String problem = firstProblem(map.keySet(), expression, property + ".keySet().![", visited);
            return problem != null ? problem
                    : firstProblem(map.values(), expression, property + ".values().![", visited);
        }
        if (IDENTITY_TO_STRING.get(type)) {
            String suggestion = property.endsWith("[") ? property + "id]" : property + ".id";
            return "a " + type.getName() + ", which does not override toString(): its text (" + value
                    + ") is an identity, different for every object, so calls would not exclude each other. Lock on "
                    + "a property that identifies it, such as " + suggestion + ", or give " + type.getSimpleName()
                    + " a toString() made of its identifying fields";
        }
        return null;
    }

    private static @Nullable String firstProblem(Collection<?> elements, String expression, String projection,
            Set<Object> seen) {
        for (Object element : elements) {
            String problem = element == null ? null : identityProblem(element, expression, projection, seen);
            if (problem != null) {
                return "something that holds " + problem;
            }
        }
        return null;
    }

    private static InvalidLockKeyException invalid(String expression, LockDefinition definition, String problem) {
        return new InvalidLockKeyException(expression, "Key expression '" + expression + "' of @DistributedLock on "
                + definition.describeMethod() + " " + problem + "; the method was not run");
    }
}
