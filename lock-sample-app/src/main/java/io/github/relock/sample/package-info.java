/**
 * The relock sample: an order-payment service where paying an order twice would be a real bug, kept
 * from happening by {@code @DistributedLock} across every instance of the service.
 */
@NullMarked
package io.github.relock.sample;

import org.jspecify.annotations.NullMarked;
