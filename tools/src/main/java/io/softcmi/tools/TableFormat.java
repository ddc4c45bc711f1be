package io.softcmi.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a node table ({@code ControlMessage.Table}: column names and rows of strings) for
 * people, as aligned text, or for programs, as a JSON array of objects.
 *
 * <p>Text: one header line, one line per row, columns separated by two spaces, numeric columns
 * right-aligned, no trailing blanks. JSON: one object per row, keys are the column names in lower
 * case with {@code -} turned into {@code _}; a value that is a decimal integer becomes a JSON
 * number (reservation keys use all 63 bits: read them as 64-bit integers, not doubles),
 * {@code -} (nothing) becomes {@code null}, anything else a string.
 */
public final class TableFormat {
    private TableFormat() {
    }

    /**
     * Formats a table as aligned text.
     *
     * @param columns the column names
     * @param rows the rows; each as wide as {@code columns}
     * @return the text, each line ending with a newline
     * @throws IllegalArgumentException if a row's width differs from the header's
     */
    public static String text(List<String> columns, List<List<String>> rows) {
        checkWidths(columns, rows);
        int n = columns.size();
        int[] width = new int[n];
        boolean[] numeric = new boolean[n];
        for (int c = 0; c < n; c++) {
            width[c] = columns.get(c).length();
            numeric[c] = !rows.isEmpty();
            for (List<String> row : rows) {
                String v = row.get(c);
                width[c] = Math.max(width[c], v.length());
                numeric[c] &= v.matches("-?[0-9]+") || v.equals("-");
            }
        }
        StringBuilder out = new StringBuilder();
        appendLine(out, columns, width, numeric);
        for (List<String> row : rows) {
            appendLine(out, row, width, numeric);
        }
        return out.toString();
    }

    /**
     * Formats a table as a JSON array of objects, one per row.
     *
     * @param columns the column names
     * @param rows the rows; each as wide as {@code columns}
     * @return the JSON text, ending with a newline
     * @throws IllegalArgumentException if a row's width differs from the header's
     */
    public static String json(List<String> columns, List<List<String>> rows) {
        checkWidths(columns, rows);
        List<String> keys = new ArrayList<>(columns.size());
        for (String c : columns) {
            keys.add(c.toLowerCase(Locale.ROOT).replace('-', '_'));
        }
        StringBuilder out = new StringBuilder("[");
        for (int r = 0; r < rows.size(); r++) {
            out.append(r == 0 ? "\n  {" : ",\n  {");
            List<String> row = rows.get(r);
            for (int c = 0; c < keys.size(); c++) {
                out.append(c == 0 ? "" : ", ");
                quote(out, keys.get(c)).append(": ");
                jsonValue(out, row.get(c));
            }
            out.append('}');
        }
        return out.append(rows.isEmpty() ? "]\n" : "\n]\n").toString();
    }

    private static void checkWidths(List<String> columns, List<List<String>> rows) {
        for (List<String> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("row has " + row.size() + " cells, header has " + columns.size());
            }
        }
    }

    private static void appendLine(StringBuilder out, List<String> cells, int[] width, boolean[] numeric) {
        int start = out.length();
        for (int c = 0; c < cells.size(); c++) {
            String v = cells.get(c);
            if (c > 0) {
                out.append("  ");
            }
            String pad = " ".repeat(width[c] - v.length());
            out.append(numeric[c] ? pad + v : v + pad);
        }
        int end = out.length();
        while (end > start && out.charAt(end - 1) == ' ') {
            end--;
        }
        out.setLength(end);
        out.append('\n');
    }

    private static void jsonValue(StringBuilder out, String v) {
        if (v.equals("-")) {
            out.append("null");
        } else if (isJsonNumber(v)) {
            out.append(v);
        } else {
            quote(out, v);
        }
    }

    private static boolean isJsonNumber(String v) {
        // Any long: JSON numbers have arbitrary precision. Readers that hold numbers as doubles
        // (JavaScript) round values beyond 2^53, such as 63-bit reservation keys.
        return v.matches("-?(0|[1-9][0-9]{0,18})");
    }

    private static StringBuilder quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        return out.append('"');
    }
}
