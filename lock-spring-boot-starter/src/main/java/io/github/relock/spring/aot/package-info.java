/**
 * Hints for Spring AOT and GraalVM native images: the resources and reflection relock uses at run time.
 */
@NullMarked
package io.github.relock.spring.aot;

import org.jspecify.annotations.NullMarked;
