package io.github.relock.spring.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

import io.github.relock.core.StaleFencingTokenException;

/**
 * Makes a row's write conditional on a lock's fencing token, so that a holder whose lease ran out (a long pause,
 * a partition) cannot overwrite what a later holder wrote. The row keeps the highest token that wrote it; a write
 * goes through only with a higher one:
 *
 * <pre>{@code
 * @DistributedLock(name = "orders", key = "#orderId")
 * @Transactional
 * public void ship(long orderId) {
 *     long token = CurrentLock.get().fencingToken();
 *     FencedJdbc.advance(jdbc, "orders", "id", orderId, "lock_token", token,
 *             Map.of("status", "SHIPPED"));   // refused with StaleFencingTokenException if a later holder wrote
 *     ...
 * }
 * }</pre>
 *
 * The statement runs through the given {@link JdbcClient}, so inside the caller's transaction if there is one: put
 * the fenced write first, and a stale holder is refused before it has changed anything else. The token column is a
 * nullable integer column ({@code BIGINT}); {@code NULL} means no lock holder has written the row yet. A hold
 * advances a row once: a second call with the same token is refused too, so set the row's other columns in the
 * same call.
 *
 * <p>Table and column names are written into the SQL, so they must be identifiers: ASCII letters, digits and
 * {@code _}, not starting with a digit, optionally qualified with {@code .} ({@code billing.orders}). Anything
 * else is refused with {@link IllegalArgumentException}; never pass a name that comes from a request.
 */
public final class FencedJdbc {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*");

    private FencedJdbc() {
    }

    /**
     * Stores {@code token} in the row's {@code tokenColumn} if the row has none yet or a lower one:
     * {@code UPDATE <table> SET <tokenColumn> = ? WHERE <idColumn> = ? AND (<tokenColumn> IS NULL OR <tokenColumn> < ?)}.
     *
     * @param jdbc        the client to run the statement with (and so the transaction it runs in)
     * @param table       the table, such as {@code orders}
     * @param idColumn    the column that identifies the row, such as {@code id}
     * @param id          the row's id
     * @param tokenColumn the column that keeps the highest token that wrote the row
     * @param token       the fencing token of the caller's hold, such as {@code CurrentLock.get().fencingToken()}
     * @throws StaleFencingTokenException if no row moved: the row carries this token or a higher one, or there is
     *                                    no row with that id
     * @throws IllegalArgumentException   if a table or column name is not an identifier
     */
    public static void advance(JdbcClient jdbc, String table, String idColumn, Object id, String tokenColumn,
            long token) {
        advance(jdbc, table, idColumn, id, tokenColumn, token, Map.of());
    }

    /**
     * {@link #advance(JdbcClient, String, String, Object, String, long)}, setting {@code otherColumns} in the same
     * statement: they change only if the token is accepted.
     *
     * @param otherColumns column name to value; values are bound as parameters (a {@code null} value sets
     *                     {@code NULL}); neither {@code tokenColumn} nor {@code idColumn} may be among them
     * @throws StaleFencingTokenException if no row moved
     * @throws IllegalArgumentException   if a table or column name is not an identifier, or a column is given twice
     */
    public static void advance(JdbcClient jdbc, String table, String idColumn, Object id, String tokenColumn,
            long token, Map<String, ? extends @Nullable Object> otherColumns) {
        Objects.requireNonNull(jdbc, "jdbc must not be null");
        Objects.requireNonNull(id, "id must not be null");
        Objects.requireNonNull(otherColumns, "otherColumns must not be null");
        identifier("table", table);
        identifier("idColumn", idColumn);
        identifier("tokenColumn", tokenColumn);
        StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ").append(tokenColumn).append(" = ?");
        List<@Nullable Object> parameters = new ArrayList<>();
        parameters.add(token);
        for (Map.Entry<String, ? extends @Nullable Object> column : otherColumns.entrySet()) {
            String name = identifier("a column of otherColumns", column.getKey());
            boolean isToken = sameColumn(name, tokenColumn);
            if (isToken || sameColumn(name, idColumn)) {
                throw new IllegalArgumentException("otherColumns must not set '" + name + "': it is the "
                        + (isToken ? "token column, which the fenced write sets itself"
                        : "id column, which picks the row"));
            }
            sql.append(", ").append(name).append(" = ?");
            parameters.add(column.getValue());
        }
        sql.append(" WHERE ").append(idColumn).append(" = ? AND (").append(tokenColumn).append(" IS NULL OR ")
                .append(tokenColumn).append(" < ?)");
        parameters.add(id);
        parameters.add(token);
        if (jdbc.sql(sql.toString()).params(parameters).update() == 0) {
            throw stale(jdbc, table, idColumn, id, tokenColumn, token);
        }
    }

    /** Says which way the row refused: a higher (or equal) token, or no row at all. */
    private static StaleFencingTokenException stale(JdbcClient jdbc, String table, String idColumn, Object id,
            String tokenColumn, long token) {
        List<@Nullable Long> stored = jdbc.sql("SELECT " + tokenColumn + " FROM " + table + " WHERE " + idColumn
                + " = ?").param(id).query((rs, row) -> {
                    long value = rs.getLong(1);
                    return rs.wasNull() ? null : value;
                }).list();
        String row = table + " " + idColumn + " = " + id;
        if (stored.isEmpty()) {
            return new StaleFencingTokenException(token, table, id, "Fenced write of " + row + " with fencing token "
                    + token + " refused: there is no such row. Nothing was written");
        }
        Long current = stored.get(0);
        String why = current != null && current == token ? "this hold has advanced it already (a hold advances a "
                + "row once: set its other columns in the same call)"
                : "a later holder of the lock has written it since this hold began (this hold outlived its lease)";
        return new StaleFencingTokenException(token, table, id, "Fenced write of " + row + " with fencing token "
                + token + " refused: the row carries token " + current + " in " + tokenColumn + ", so " + why
                + ". Nothing was written; roll back this holder's work");
    }

    /** Whether two column names, either of them qualified ({@code orders.lock_token}), name one column. */
    private static boolean sameColumn(String one, String other) {
        return one.substring(one.lastIndexOf('.') + 1).equalsIgnoreCase(other.substring(other.lastIndexOf('.') + 1));
    }

    private static String identifier(String what, @Nullable String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " '" + name + "' is not an identifier: use ASCII letters, "
                    + "digits and _ (not starting with a digit), parts joined by '.'; names are written into the SQL, "
                    + "so they must never come from input");
        }
        return name;
    }
}
