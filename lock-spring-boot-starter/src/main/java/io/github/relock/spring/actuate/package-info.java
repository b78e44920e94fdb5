/** Spring Boot Actuator support, used only when actuator is on the class path. */
@NullMarked
package io.github.relock.spring.actuate;

import org.jspecify.annotations.NullMarked;
