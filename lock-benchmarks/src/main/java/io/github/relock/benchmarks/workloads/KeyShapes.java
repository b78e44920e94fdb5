package io.github.relock.benchmarks.workloads;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * What a set of Redis keys is made of: the keys grouped by shape (the lock name written {@code NAME}), each shape
 * with its count, its type and size, what one of them holds, its {@code MEMORY USAGE} and how long it lives, so a
 * report can say what each byte kept for a lock is for.
 */
final class KeyShapes {

    /** Keys per shape sized with MEMORY USAGE; the rest of a shape is counted, not sized again. */
    private static final int SIZED_PER_SHAPE = 500;

    /**
     * One shape of key.
     *
     * @param shape    the key with the lock name written NAME
     * @param keys     keys of this shape
     * @param bytes    MEMORY USAGE of all of them (the sized ones, scaled up)
     * @param type     Redis type
     * @param contents what one of them holds, e.g. {@code 1 field (owner → hold count)}
     * @param ttlMillis longest time to live seen, -1 for none
     */
    record Shape(String shape, long keys, double bytes, String type, String contents, long ttlMillis) {
    }

    private KeyShapes() {
    }

    /** Every key of {@code keys} by shape, where {@code name} matches a lock name. */
    static List<Shape> of(RedisCommands<String, String> redis, Iterable<String> keys, Pattern name) {
        Map<String, long[]> counts = new TreeMap<>(); // shape -> {keys, sized, bytes of the sized, longest ttl}
        Map<String, String> sample = new TreeMap<>();
        for (String key : keys) {
            String shape = name.matcher(key).replaceAll("NAME");
            long[] c = counts.computeIfAbsent(shape, s -> new long[] {0, 0, 0, -1});
            c[0]++;
            if (c[1] < SIZED_PER_SHAPE) {
                Long usage = redis.memoryUsage(key);
                if (usage != null) { // null: expired between SCAN and now
                    c[1]++;
                    c[2] += usage;
                    c[3] = Math.max(c[3], redis.pttl(key));
                    sample.putIfAbsent(shape, key);
                }
            }
        }
        List<Shape> shapes = new ArrayList<>();
        counts.forEach((shape, c) -> {
            String key = sample.get(shape);
            String type = key == null ? "gone" : redis.type(key);
            shapes.add(new Shape(shape, c[0], c[1] == 0 ? 0 : c[2] * (double) c[0] / c[1], type,
                    key == null ? "" : contents(redis, key, type), c[3]));
        });
        return shapes;
    }

    /** One line per shape for a report: shape, count, type and contents, bytes per {@code per} and time to live. */
    static List<String> describe(List<Shape> shapes, int locks, String per) {
        List<String> out = new ArrayList<>();
        for (Shape s : shapes) {
            out.add(String.format(Locale.ROOT, "`%s` ×%d: %s%s, %.0f B/%s, %s", s.shape(), s.keys(), s.type(),
                    s.contents().isEmpty() ? "" : " " + s.contents(), s.bytes() / locks, per,
                    s.ttlMillis() < 0 ? "no expiry" : "expires in " + duration(s.ttlMillis())));
        }
        return out;
    }

    static double bytes(List<Shape> shapes) {
        return shapes.stream().mapToDouble(Shape::bytes).sum();
    }

    private static String contents(RedisCommands<String, String> redis, String key, String type) {
        return switch (type) {
            case "hash" -> {
                Map<String, String> fields = redis.hgetall(key);
                yield "(" + fields.size() + (fields.size() == 1 ? " field: " : " fields: ")
                        + String.join(", ", fields.entrySet().stream().limit(3)
                                .map(e -> abbreviate(e.getKey()) + " → " + abbreviate(e.getValue())).toList()) + ")";
            }
            case "string" -> "(" + abbreviate(redis.get(key)) + ")";
            case "zset" -> "(" + redis.zcard(key) + " members)";
            case "list" -> "(" + redis.llen(key) + " entries)";
            case "set" -> "(" + redis.scard(key) + " members)";
            default -> "";
        };
    }

    private static String abbreviate(String text) {
        return text == null ? "nil" : text.length() <= 24 ? text : text.substring(0, 20) + "…(" + text.length() + ")";
    }

    static String duration(long millis) {
        if (millis >= 86_400_000) {
            return String.format(Locale.ROOT, "%.1f d", millis / 86_400_000.0);
        }
        if (millis >= 60_000) {
            return String.format(Locale.ROOT, "%.1f min", millis / 60_000.0);
        }
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
