/** {@code --demo}: two lock clients race to pay one order; prints what happened and exits. */
@NullMarked
package io.github.relock.sample.demo;

import org.jspecify.annotations.NullMarked;
