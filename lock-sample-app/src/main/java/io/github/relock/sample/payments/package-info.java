/** Paying an order under the {@code payments} lock, with a nested call that re-enters it. */
@NullMarked
package io.github.relock.sample.payments;

import org.jspecify.annotations.NullMarked;
