/** The HTTP API: orders, paying them, and RFC 9457 problem bodies for what went wrong. */
@NullMarked
package io.github.relock.sample.web;

import org.jspecify.annotations.NullMarked;
