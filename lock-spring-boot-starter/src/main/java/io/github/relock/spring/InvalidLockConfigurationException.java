package io.github.relock.spring;

import org.jspecify.annotations.Nullable;

/**
 * relock was configured in a way that cannot work: an invalid {@code relock.*} property, or a
 * {@link DistributedLock @DistributedLock} annotation that cannot be honoured. Thrown at startup; the
 * starter's failure analyzer prints the {@linkplain #getDescription() description} and the
 * {@linkplain #getAction() action} instead of a stack trace.
 */
public class InvalidLockConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String description;
    private final String action;

    public InvalidLockConfigurationException(String description, String action) {
        this(description, action, null);
    }

    public InvalidLockConfigurationException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.description = description;
        this.action = action;
    }

    /** What is wrong, naming the property, or the bean, method and expression. */
    public String getDescription() {
        return description;
    }

    /** What to change. */
    public String getAction() {
        return action;
    }
}
