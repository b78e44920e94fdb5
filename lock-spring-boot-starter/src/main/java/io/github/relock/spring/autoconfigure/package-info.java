/** Spring Boot auto-configuration and {@code relock.*} properties. */
@NullMarked
package io.github.relock.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
