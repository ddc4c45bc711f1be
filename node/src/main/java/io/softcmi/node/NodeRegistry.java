package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ProcessMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The node registry: small records of named fields that clients keep in the node under
 * {@code (space, key)} ({@link ProcessMessage.RegPut}, {@link ProcessMessage.RegGet},
 * {@link ProcessMessage.RegDelete}), and counters that hand out ids unique at this node
 * ({@link ProcessMessage.RegNext}). A general mechanism: VMMC keeps its sessions in space
 * {@code session} and numbers its run groups with counters; {@code cmiadm sessions} lists the
 * {@code session} space. Kept in memory: the records live as long as the daemon, not longer.
 * Thread-safe (its own monitor).
 */
final class NodeRegistry {
    /** Most records per space. */
    static final int MAX_RECORDS = 4096;
    private final Map<String, Map<String, Map<String, String>>> spaces = new HashMap<>();
    private final Map<String, Long> counters = new HashMap<>();

    synchronized ControlMessage put(ProcessMessage.RegPut r) {
        Map<String, Map<String, String>> space = spaces.computeIfAbsent(r.space(), k -> new LinkedHashMap<>());
        if (r.create() && space.containsKey(r.key())) {
            throw NodeException.inval(r.space() + " " + r.key() + " exists");
        }
        if (!space.containsKey(r.key()) && space.size() >= MAX_RECORDS) {
            throw NodeException.inval("the node keeps at most " + MAX_RECORDS + " records of " + r.space());
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String f : r.fields()) {
            int eq = f.indexOf('=');
            if (eq <= 0) {
                throw NodeException.inval("field '" + f + "' is not NAME=VALUE");
            }
            fields.put(f.substring(0, eq), f.substring(eq + 1));
        }
        space.put(r.key(), fields);
        return new ControlMessage.Ok();
    }

    synchronized ControlMessage get(ProcessMessage.RegGet r) {
        Map<String, String> fields = spaces.getOrDefault(r.space(), Map.of()).get(r.key());
        if (fields == null) {
            return new ControlMessage.Table(List.of(), List.of());
        }
        return new ControlMessage.Table(List.copyOf(fields.keySet()), List.of(List.copyOf(fields.values())));
    }

    synchronized ControlMessage delete(ProcessMessage.RegDelete r) {
        Map<String, Map<String, String>> space = spaces.get(r.space());
        boolean existed = space != null && space.remove(r.key()) != null;
        counters.remove(r.space() + "\0" + r.key());
        return new ControlMessage.LongValue(existed ? 1 : 0);
    }

    synchronized ControlMessage next(ProcessMessage.RegNext r) {
        return new ControlMessage.LongValue(counters.merge(r.space() + "\0" + r.key(), 1L, Long::sum));
    }

    /**
     * A space as a table: the key, then the union of the records' field names (in first-seen
     * order), {@code -} where a record lacks a field.
     *
     * @param space the space
     * @param keyColumn the first column's header
     * @return the table
     */
    synchronized ControlMessage.Table table(String space, String keyColumn) {
        Map<String, Map<String, String>> records = spaces.getOrDefault(space, Map.of());
        Set<String> names = new LinkedHashSet<>();
        records.values().forEach(f -> names.addAll(f.keySet()));
        List<String> columns = new ArrayList<>();
        columns.add(keyColumn);
        names.forEach(n -> columns.add(n.toUpperCase(java.util.Locale.ROOT)));
        List<List<String>> rows = new ArrayList<>();
        records.forEach((key, fields) -> {
            List<String> row = new ArrayList<>();
            row.add(key);
            names.forEach(n -> row.add(fields.getOrDefault(n, "-")));
            rows.add(row);
        });
        return new ControlMessage.Table(columns, rows);
    }
}
