package io.github.relock.chaos;

import java.util.List;

/**
 * A broken promise found in a history: which rule, on which lock (or client), when, which holds or calls
 * were involved, and a one-line explanation. The minimal history around it is rendered separately.
 */
record Violation(String rule, String key, long from, long to, List<String> involved, String detail) {
}
