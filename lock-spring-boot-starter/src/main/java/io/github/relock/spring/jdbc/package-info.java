/** Writes fenced by a lock's fencing token, for applications that use {@code spring-jdbc}. */
@NullMarked
package io.github.relock.spring.jdbc;

import org.jspecify.annotations.NullMarked;
