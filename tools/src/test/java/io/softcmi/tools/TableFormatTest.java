package io.softcmi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableFormatTest {
    private static final List<String> COLUMNS = List.of("ID", "SIZE", "FLAGS", "STATE", "RESERVATION");
    private static final List<List<String>> ROWS = List.of(
        List.of("1", "33554432", "lock", "active", "-"),
        List.of("12", "4096", "-", "marked", "7001"));

    @Test
    void shouldAlignColumnsAndRightAlignNumbers() {
        String expected = """
            ID      SIZE  FLAGS  STATE   RESERVATION
             1  33554432  lock   active            -
            12      4096  -      marked         7001
            """;
        assertEquals(expected, TableFormat.text(COLUMNS, ROWS));
    }

    @Test
    void shouldPrintOnlyTheHeaderOfAnEmptyTable() {
        assertEquals("TOKEN  SEGMENT  NODE\n", TableFormat.text(List.of("TOKEN", "SEGMENT", "NODE"), List.of()));
    }

    @Test
    void shouldNotLeaveTrailingBlanks() {
        String text = TableFormat.text(List.of("NAME", "STATE"), List.of(List.of("a-very-long-name", "up")));
        assertEquals("NAME              STATE\na-very-long-name  up\n", text);
    }

    @Test
    void shouldFormatJsonWithTypedValues() {
        String expected = """
            [
              {"id": 1, "size": 33554432, "flags": "lock", "state": "active", "reservation": null},
              {"id": 12, "size": 4096, "flags": null, "state": "marked", "reservation": 7001}
            ]
            """;
        assertEquals(expected, TableFormat.json(COLUMNS, ROWS));
    }

    @Test
    void shouldFormatEmptyJsonArray() {
        assertEquals("[]\n", TableFormat.json(List.of("KEY"), List.of()));
    }

    @Test
    void shouldLowerCaseKeysAndEscapeStrings() {
        String json = TableFormat.json(List.of("HOME-SEGMENT", "PROCESS"),
            List.of(List.of("007", "java \"Main\"\\x\t\u0001")));
        assertEquals("[\n  {\"home_segment\": \"007\", \"process\": \"java \\\"Main\\\"\\\\x\\t\\u0001\"}\n]\n", json);
    }

    @Test
    void shouldKeepLongKeysExactAndOverlongDigitsAsStrings() {
        String json = TableFormat.json(List.of("KEY", "X"),
            List.of(List.of(Long.toString(Long.MAX_VALUE), "123456789012345678901")));
        assertEquals("[\n  {\"key\": 9223372036854775807, \"x\": \"123456789012345678901\"}\n]\n", json);
    }

    @Test
    void shouldRejectRowsOfTheWrongWidth() {
        assertThrows(IllegalArgumentException.class, () -> TableFormat.text(List.of("A", "B"), List.of(List.of("1"))));
        assertThrows(IllegalArgumentException.class, () -> TableFormat.json(List.of("A"), List.of(List.of("1", "2"))));
    }
}
