/** A long job per tenant whose {@code Flux} of progress events holds the tenant's lock for its whole stream. */
@NullMarked
package io.github.relock.sample.reactive.jobs;

import org.jspecify.annotations.NullMarked;
