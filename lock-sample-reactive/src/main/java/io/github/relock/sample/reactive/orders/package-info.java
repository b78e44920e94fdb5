/** Orders and their charges, kept in Redis itself through the reactive Redis template. */
@NullMarked
package io.github.relock.sample.reactive.orders;

import org.jspecify.annotations.NullMarked;
