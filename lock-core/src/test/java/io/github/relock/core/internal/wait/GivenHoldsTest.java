package io.github.relock.core.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The announcement of readers let in by a write release is read back exactly, whatever characters their fields
 * hold, and anything else is not taken for such a list.
 */
class GivenHoldsTest {

    @Test
    void eachReaderIsReadWithItsToken() {
        Map<String, Long> given = new LinkedHashMap<>();
        given.put("app:1a2b:7", 1_732_000_000_000_001L);
        given.put("app:1a2b:8", 1_732_000_000_000_002L);

        assertThat(GivenHolds.parse(announce(given))).isEqualTo(given);
    }

    @Test
    void fieldsWithSpacesLineBreaksDigitsAndWideCharactersAreReadWhole() {
        Map<String, Long> given = new LinkedHashMap<>();
        given.put("\n12 5 x", 7L); // looks like the start of an entry
        given.put("größe 🔒 ü", 8L);
        given.put(" ", 9L);
        given.put("", 10L);

        assertThat(GivenHolds.parse(announce(given))).isEqualTo(given);
    }

    @Test
    void whatIsNotSuchAListListsNobody() {
        assertThat(GivenHolds.parse("app:1a2b:7")).as("a single name").isNull();
        assertThat(GivenHolds.parse("\napp:1\napp:2\n")).as("names between line breaks").isNull();
        assertThat(GivenHolds.parse("5 3 abcd")).as("a field longer than its length").isNull();
        assertThat(GivenHolds.parse("5 9 abc")).as("a field shorter than its length").isNull();
        assertThat(GivenHolds.parse("5 1 ü")).as("a length that splits a character").isNull();
        assertThat(GivenHolds.parse("0 3 abc")).as("no token").isNull();
        assertThat(GivenHolds.parse("x 3 abc")).isNull();
        assertThat(GivenHolds.parse("")).isNull();
    }

    /** What rw-release.lua announces: {@code <token> <length in bytes> <field>} per reader, nothing between. */
    private static String announce(Map<String, Long> given) {
        StringBuilder message = new StringBuilder();
        given.forEach((field, token) -> message.append(token).append(' ')
                .append(field.getBytes(StandardCharsets.UTF_8).length).append(' ').append(field));
        return message.toString();
    }
}
