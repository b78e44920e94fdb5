package io.github.relock.sample.reactive.web;

import java.math.BigDecimal;

import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /orders}.
 *
 * @param customer who pays
 * @param amount   what paying the order charges, above zero
 */
public record NewOrder(@Nullable String customer, @Nullable BigDecimal amount) {
}
