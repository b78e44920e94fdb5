/** The reactive relock sample: orders paid under a lock per order, reindex jobs streamed under a lock per tenant. */
@NullMarked
package io.github.relock.sample.reactive;

import org.jspecify.annotations.NullMarked;
