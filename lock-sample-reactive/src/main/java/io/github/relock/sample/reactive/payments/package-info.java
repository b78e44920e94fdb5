/** Paying an order under its lock: {@code PaymentService.pay} and the nested, re-entering {@code Settlement.settle}. */
@NullMarked
package io.github.relock.sample.reactive.payments;

import org.jspecify.annotations.NullMarked;
