/** The HTTP API: orders, payments and streamed reindex jobs, with RFC 9457 problem bodies. */
@NullMarked
package io.github.relock.sample.reactive.web;

import org.jspecify.annotations.NullMarked;
