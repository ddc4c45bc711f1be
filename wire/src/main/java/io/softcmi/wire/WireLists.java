package io.softcmi.wire;

import java.util.ArrayList;
import java.util.List;

/** Encodes and decodes the list fields of control messages: a 32-bit count, then the entries. */
final class WireLists {
    private WireLists() {
    }

    static void putStrings(WireWriter w, List<String> values) {
        w.putInt(values.size());
        for (String s : values) { w.putString(s); }
    }

    static List<String> getStrings(WireReader r) {
        return getStrings(r, ControlMessage.MAX_STRING);
    }

    static List<String> getStrings(WireReader r, int maxBytes) {
        int n = r.getCount(ControlMessage.MAX_LIST);
        List<String> out = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) { out.add(r.getString(maxBytes)); }
        return out;
    }

    static void putLongs(WireWriter w, List<Long> values) {
        w.putInt(values.size());
        for (long v : values) { w.putLong(v); }
    }

    static List<Long> getLongs(WireReader r) {
        int n = r.getCount(ControlMessage.MAX_LIST);
        List<Long> out = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) { out.add(r.getLong()); }
        return out;
    }
}
