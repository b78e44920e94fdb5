package io.github.relock.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * Prints what is wrong with a {@code relock.*} property or a {@code @DistributedLock} annotation, and
 * what to change, instead of a stack trace.
 */
public final class RelockFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockConfigurationException cause) {
        return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
    }
}
