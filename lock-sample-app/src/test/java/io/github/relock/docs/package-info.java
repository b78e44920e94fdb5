/**
 * The code shown in the guide under {@code docs/}: each fenced Java block there is cut from a
 * {@code // tag::name[]} region of these files, which the build compiles; {@code DocsSnippetTest} fails
 * when a block and its region differ, and {@code SnippetsAgainstRedisTest} runs them on a real Redis.
 */
@NullMarked
package io.github.relock.docs;

import org.jspecify.annotations.NullMarked;
