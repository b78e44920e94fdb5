/** Micrometer Observation support, used only when {@code micrometer-observation} is on the class path. */
@NullMarked
package io.github.relock.spring.observation;

import org.jspecify.annotations.NullMarked;
