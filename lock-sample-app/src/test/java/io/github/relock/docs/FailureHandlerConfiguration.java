package io.github.relock.docs;

import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

import io.github.relock.spring.LockFailureHandler;

/**
 * The annotation guide's global failure mapping. Not a {@code @Configuration}, so the test application does not
 * pick it up (it would take over from {@link LockBusyAdvice}); {@code SnippetsAgainstRedisTest} registers it alone.
 */
class FailureHandlerConfiguration {

    // tag::failure-handler[]
    @Bean
    LockFailureHandler lockFailureHandler() {        // for every annotated method without a fallbackMethod
        return (method, arguments, busy) -> {
            throw new ResponseStatusException(HttpStatus.CONFLICT, busy.getMessage());
        };
    }
    // end::failure-handler[]
}
