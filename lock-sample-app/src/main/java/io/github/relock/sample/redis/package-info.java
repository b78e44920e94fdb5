/** Uses the Redis at {@code spring.data.redis.*} if one answers there, else starts an embedded {@code redis-server} there. */
@NullMarked
package io.github.relock.sample.redis;

import org.jspecify.annotations.NullMarked;
