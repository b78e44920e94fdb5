/** Orders and their payments, stored in H2 with plain SQL. */
@NullMarked
package io.github.relock.sample.orders;

import org.jspecify.annotations.NullMarked;
