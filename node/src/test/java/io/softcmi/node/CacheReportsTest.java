package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.CacheReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The node's view of its contexts' cache figures: the {@code cmiadm caches} table and the metrics' totals. */
class CacheReportsTest {
    private static final Session.Notifier QUIET = new Session.Notifier() {
        @Override public void send(ControlMessage notice) { }
        @Override public void sendNow(ControlMessage notice) { }
    };

    private static Session session(long id, long pid, CacheReport r) {
        Session s = new Session(id, pid, "user", "proc", 11, QUIET);
        s.cacheReport = r;
        return s;
    }

    private static CacheReport report(long base) {
        return new CacheReport(1, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8, base + 9,
            base + 10, base + 11, base + 12, base + 13, base + 14);
    }

    @Test
    void shouldListOneRowPerReportingContextAndATotal() {
        CacheReports reports = new CacheReports();
        ControlMessage.Table t = reports.table(List.of(session(3, 300, report(0)), session(4, 400, null),
            session(5, 500, report(100))));
        assertEquals(List.of("CONTEXT", "PID", "IMPORTS", "RESIDENT-LINES", "DIRTY-LINES", "MEMORY-BYTES", "CAPACITY-BYTES",
            "MISSES", "FILLS", "FILL-BYTES", "WRITE-BACK-LINES", "DIFFS", "DIFF-BYTES", "ACQUIRES", "INVALIDATIONS",
            "EVICTIONS", "BG-WRITE-BACKS"), t.columns());
        assertEquals(3, t.rows().size(), "two contexts that reported and the total");
        assertEquals(List.of("3", "300", "1", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"),
            t.rows().get(0));
        assertEquals("5", t.rows().get(1).get(0));
        assertEquals(List.of("total", "-", "2", "102", "104", "106", "108", "110", "112", "114", "116", "118", "120", "122",
            "124", "126", "128"), t.rows().get(2));
        assertEquals(List.of(List.of("total", "-", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0",
            "0")), reports.table(List.of()).rows(), "no context: a zero total");
    }

    @Test
    void shouldKeepTheCountersOfEndedContextsInTheTotalsButNotTheirState() {
        CacheReports reports = new CacheReports();
        Session ended = session(3, 300, report(0));
        Session live = session(4, 400, report(100));
        reports.contextEnded(ended);
        reports.contextEnded(session(6, 600, null));
        CacheReports.Totals t = reports.totals(List.of(live));
        assertEquals(1, t.contexts());
        long[] v = t.values();
        assertEquals(1, v[0], "imports: the live context's only");
        assertEquals(103, v[3], "memory: the live context's only");
        assertEquals(104, v[4], "capacity: the live context's only");
        assertEquals(105 + 5, v[5], "misses: both");
        assertEquals(114 + 14, v[14], "background write-backs: both");
        for (int i = 0; i < v.length; i++) {
            CacheReports.Figure f = CacheReports.FIGURES.get(i);
            long mine = f.value().applyAsLong(report(100));
            long theirs = f.value().applyAsLong(report(0));
            assertEquals(f.counter() ? mine + theirs : mine, v[i], f.metric());
            assertEquals(f.counter(), f.metric().endsWith("_total"), f.metric() + ": counters and only they end in _total");
        }
    }
}
