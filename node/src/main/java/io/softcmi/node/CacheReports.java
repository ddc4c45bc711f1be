package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.CacheReport;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The client cache figures of the node's contexts ({@code docs/cache.md} "Counters"): each
 * context's latest {@link CacheReport} lives on its {@link Session} and goes with it. This class
 * names the figures (the columns of {@code cmiadm caches} and the metrics' series), sums them,
 * and keeps the counters of contexts that ended, so the node's counter totals never go back.
 * Called under the engine's lock.
 */
final class CacheReports {
    /**
     * One figure of a report.
     *
     * @param column the {@code cmiadm caches} column
     * @param metric the node-total series in the metrics
     * @param help the series' help text
     * @param counter a counter since the context began (kept when it ends), or a state now
     * @param value reads the figure from a report
     */
    record Figure(String column, String metric, String help, boolean counter, ToLongFunction<CacheReport> value) {
    }

    /** Every figure, in the order of {@link CacheReport}'s fields. */
    static final List<Figure> FIGURES = List.of(
        new Figure("IMPORTS", "softcmi_client_cache_imports", "Cached imports attached by the node's contexts", false,
            CacheReport::cachedImports),
        new Figure("RESIDENT-LINES", "softcmi_client_cache_resident_lines", "Lines the contexts' caches hold", false,
            CacheReport::residentLines),
        new Figure("DIRTY-LINES", "softcmi_client_cache_dirty_lines", "Cached lines stored to and not yet written back",
            false, CacheReport::dirtyLines),
        new Figure("MEMORY-BYTES", "softcmi_client_cache_memory_bytes", "Bytes the contexts' caches hold (lines and twins)",
            false, CacheReport::memoryBytes),
        new Figure("CAPACITY-BYTES", "softcmi_client_cache_capacity_bytes",
            "Bounds of the contexts' caches (CMI_CTL_CACHE_RSEG_SET), summed", false, CacheReport::capacityBytes),
        new Figure("MISSES", "softcmi_client_cache_misses_total", "Cache misses of the node's contexts", true,
            CacheReport::misses),
        new Figure("FILLS", "softcmi_client_cache_fills_total", "Fill requests the contexts sent to homes", true,
            CacheReport::fills),
        new Figure("FILL-BYTES", "softcmi_client_cache_fill_bytes_total", "Bytes the contexts' fills brought", true,
            CacheReport::fillBytes),
        new Figure("WRITE-BACK-LINES", "softcmi_client_cache_write_back_lines_total", "Dirty lines written back", true,
            CacheReport::writeBackLines),
        new Figure("DIFFS", "softcmi_client_cache_diffs_total", "Diff runs sent to homes", true, CacheReport::diffs),
        new Figure("DIFF-BYTES", "softcmi_client_cache_diff_bytes_total", "Bytes of diffs sent to homes", true,
            CacheReport::diffBytes),
        new Figure("ACQUIRES", "softcmi_client_cache_acquires_total", "Acquires run (barriers and background refresh)",
            true, CacheReport::acquires),
        new Figure("INVALIDATIONS", "softcmi_client_cache_invalidations_total", "Cached lines dropped by acquires", true,
            CacheReport::invalidations),
        new Figure("EVICTIONS", "softcmi_client_cache_evictions_total", "Cached lines dropped to stay within capacity",
            true, CacheReport::evictions),
        new Figure("BG-WRITE-BACKS", "softcmi_client_cache_background_write_backs_total",
            "Write-backs started by the caches' background threads", true, CacheReport::backgroundWriteBacks));

    /** Counters of contexts that ended, by figure (states stay 0). */
    private final long[] ended = new long[FIGURES.size()];

    /**
     * Node totals for the metrics.
     *
     * @param contexts contexts with a report now
     * @param values by figure: states summed over those contexts, counters also over ended ones
     */
    record Totals(long contexts, long[] values) {
    }

    /**
     * A context ended: its counters stay in the node's totals, its state goes.
     *
     * @param s the session
     */
    void contextEnded(Session s) {
        CacheReport r = s.cacheReport;
        if (r == null) {
            return;
        }
        for (int i = 0; i < ended.length; i++) {
            if (FIGURES.get(i).counter()) {
                ended[i] += FIGURES.get(i).value().applyAsLong(r);
            }
        }
    }

    /**
     * {@code cmiadm caches}: one row per context that reported, and a total row over them.
     *
     * @param sessions the node's sessions
     * @return the table
     */
    ControlMessage.Table table(Collection<Session> sessions) {
        List<String> columns = new ArrayList<>(List.of("CONTEXT", "PID"));
        FIGURES.forEach(f -> columns.add(f.column()));
        List<List<String>> rows = new ArrayList<>();
        long[] total = new long[FIGURES.size()];
        for (Session s : sessions) {
            CacheReport r = s.cacheReport;
            if (r == null) {
                continue;
            }
            List<String> row = new ArrayList<>(List.of(Long.toString(s.id), Long.toString(s.pid)));
            for (int i = 0; i < total.length; i++) {
                long v = FIGURES.get(i).value().applyAsLong(r);
                total[i] += v;
                row.add(Long.toString(v));
            }
            rows.add(row);
        }
        List<String> last = new ArrayList<>(List.of("total", "-"));
        for (long v : total) {
            last.add(Long.toString(v));
        }
        rows.add(last);
        return new ControlMessage.Table(columns, rows);
    }

    /**
     * Node totals for the metrics.
     *
     * @param sessions the node's sessions
     * @return states summed over contexts that reported, counters over those and ended ones
     */
    Totals totals(Collection<Session> sessions) {
        long[] v = ended.clone();
        long contexts = 0;
        for (Session s : sessions) {
            CacheReport r = s.cacheReport;
            if (r == null) {
                continue;
            }
            contexts++;
            for (int i = 0; i < v.length; i++) {
                v[i] += FIGURES.get(i).value().applyAsLong(r);
            }
        }
        return new Totals(contexts, v);
    }
}
