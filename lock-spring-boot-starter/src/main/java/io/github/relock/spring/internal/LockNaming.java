package io.github.relock.spring.internal;

import java.util.List;
import java.util.TreeSet;

import io.github.relock.core.LockNames;
import io.github.relock.spring.InvalidLockKeyException;

/**
 * The lock names of one call: each key expression evaluated, checked ({@link LockKeyValues}) and joined to
 * the logical name by {@link LockNames}, sorted and without duplicates (the order a multi-lock takes them in).
 */
final class LockNaming {

    private LockNaming() {
    }

    static List<String> names(LockDefinition definition, Object[] arguments, Object target) {
        if (definition.keys().isEmpty()) {
            return List.of(definition.name());
        }
        TreeSet<String> names = new TreeSet<>();
        for (LockDefinition.Key key : definition.keys()) {
            Object value;
            try {
                value = key.parsed().evaluate(arguments, target);
            }
            catch (InvalidLockKeyException ex) {
                throw ex; // a LockKeyResolver of the application's own said so already
            }
            catch (RuntimeException ex) { // SpEL's errors, and a method's the key called, which SpEL passes on as is
                throw new InvalidLockKeyException(key.expression(), "Key expression '" + key.expression()
                        + "' of @DistributedLock on " + definition.describeMethod() + " could not be evaluated for "
                        + "this call (" + ex.getMessage() + "); the method was not run", ex);
            }
            String text = LockKeyValues.text(value, key.expression(), definition);
            try {
                names.add(LockNames.of(definition.name(), text));
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidLockKeyException(key.expression(), "Key expression '" + key.expression()
                        + "' of @DistributedLock on " + definition.describeMethod() + " gave no usable lock name: "
                        + ex.getMessage() + "; the method was not run", ex);
            }
        }
        return List.copyOf(names);
    }
}
