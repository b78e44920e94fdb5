/** Micrometer meters for a dashboard, used only when {@code micrometer-core} is on the class path. */
@NullMarked
package io.github.relock.spring.metrics;

import org.jspecify.annotations.NullMarked;
