package io.softcmi.node;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the home's remote data path: connections, requests and bytes by kind, errors,
 * requests waiting in connections' input, and how the I/O loops spent their time (working,
 * polling, blocked). Updated by the I/O loops without locks; read by {@code cmiadm} and metrics.
 */
final class DataPathStats {
    final AtomicLong connectionsOpen = new AtomicLong();
    final LongAdder connectionsTotal = new LongAdder();
    /** Connections handed to the loop on the core their packets arrive on ({@link LoopCpus}). */
    final LongAdder connectionsMoved = new LongAdder();
    /** Passes whose requests a poll found by reading the hot connection's socket directly ({@link DataIoLoop}). */
    final LongAdder hotReads = new LongAdder();
    /** I/O loops running with the short scheduling slice ({@code LatencySlice}). */
    final AtomicLong loopsWithShortSlice = new AtomicLong();
    final LongAdder refusedHellos = new LongAdder();
    /** Data connections a newer connection of the same context superseded while still open ({@link ConnectionLineage}). */
    final LongAdder connectionsSuperseded = new LongAdder();
    final LongAdder gets = new LongAdder();
    final LongAdder puts = new LongAdder();
    final LongAdder cases = new LongAdder();
    final LongAdder notifies = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder fills = new LongAdder();
    final LongAdder diffs = new LongAdder();
    final LongAdder diffRuns = new LongAdder();
    final LongAdder acquires = new LongAdder();
    final LongAdder acquireRanges = new LongAdder();
    final LongAdder forgets = new LongAdder();
    final LongAdder bytesRead = new LongAdder();
    final LongAdder bytesWritten = new LongAdder();
    final LongAdder workNanos = new LongAdder();
    final LongAdder pollNanos = new LongAdder();
    final LongAdder blockNanos = new LongAdder();
    final LongAdder batches = new LongAdder();
    /**
     * Times a connection was held because a notification's creator was too far behind
     * (notification back-pressure, {@link NotificationService#mustWait}).
     */
    final LongAdder notificationHolds = new LongAdder();
    /** Largest number of requests served from one connection's input in one pass (a queue depth). */
    final AtomicLong maxBatch = new AtomicLong();
    /**
     * Time the home spends on one request, from reading its header to its reply being queued
     * (ns; HdrHistogram, 3 significant digits): one single-writer recorder per thread that
     * serves requests (an I/O loop), so that recording touches no memory another loop writes.
     * A recorder shared by the loops moved its counters between the cores on every request
     * (with it and the traffic tables left out, the fan-in benchmark's home spent about a
     * microsecond less per request; docs/benchmarks.md, "The service-time recorder").
     */
    private final ThreadLocal<org.HdrHistogram.SingleWriterRecorder> serviceNanos = ThreadLocal.withInitial(this::newRecorder);
    /** Every thread's recorder, for {@link #serviceHistogram}. */
    private final java.util.List<org.HdrHistogram.SingleWriterRecorder> serviceRecorders =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    private final org.HdrHistogram.Histogram serviceTotal = new org.HdrHistogram.Histogram(3);
    /** Traffic by the client's node (its 16-byte id in hex), at most 1024 nodes. */
    final Traffic.Table<String> byPeer = new Traffic.Table<>(1024);
    /** Traffic by home segment id, at most 4096 segments (reclaimed ones are dropped by the metrics endpoint). */
    final Traffic.Table<Long> bySegment = new Traffic.Table<>(4096);

    /**
     * Everything recorded so far (the recorder's interval histograms added up).
     *
     * @return a copy, for one report
     */
    synchronized org.HdrHistogram.Histogram serviceHistogram() {
        for (org.HdrHistogram.SingleWriterRecorder r : serviceRecorders) {
            serviceTotal.add(r.getIntervalHistogram());
        }
        return serviceTotal.copy();
    }

    /**
     * The calling thread's recorder of service times (an I/O loop's; any thread may serve, for
     * example in a test). Only the calling thread may record into it.
     *
     * @return the recorder
     */
    org.HdrHistogram.SingleWriterRecorder serviceRecorder() {
        return serviceNanos.get();
    }

    private org.HdrHistogram.SingleWriterRecorder newRecorder() {
        org.HdrHistogram.SingleWriterRecorder r = new org.HdrHistogram.SingleWriterRecorder(3);
        serviceRecorders.add(r);
        return r;
    }

    void request(byte op, long bytes) {
        switch (op) {
            case io.softcmi.wire.DataProtocol.OP_GET -> {
                gets.increment();
                bytesRead.add(bytes);
            }
            case io.softcmi.wire.DataProtocol.OP_PUT -> {
                puts.increment();
                bytesWritten.add(bytes);
            }
            case io.softcmi.wire.DataProtocol.OP_NOTIFY -> notifies.increment();
            case io.softcmi.wire.DataProtocol.OP_FILL -> {
                fills.increment();
                bytesRead.add(bytes);
            }
            case io.softcmi.wire.DataProtocol.OP_DIFF -> {
                diffs.increment();
                bytesWritten.add(bytes);
            }
            case io.softcmi.wire.DataProtocol.OP_ACQUIRE -> acquires.increment();
            case io.softcmi.wire.DataProtocol.OP_FORGET -> forgets.increment();
            default -> cases.increment();
        }
    }

    void batch(int requests) {
        batches.increment();
        if (requests > maxBatch.get()) {
            maxBatch.accumulateAndGet(requests, Math::max);
        }
    }

    /** @return the figures as name/value pairs, in a fixed order (for {@code cmiadm dataplane}) */
    java.util.LinkedHashMap<String, Long> snapshot() {
        var m = new java.util.LinkedHashMap<String, Long>();
        m.put("connections_open", connectionsOpen.get());
        m.put("connections_total", connectionsTotal.sum());
        m.put("connections_moved", connectionsMoved.sum());
        m.put("hot_reads", hotReads.sum());
        m.put("io_loops_short_slice", loopsWithShortSlice.get());
        m.put("hellos_refused", refusedHellos.sum());
        m.put("connections_superseded", connectionsSuperseded.sum());
        m.put("requests_get", gets.sum());
        m.put("requests_put", puts.sum());
        m.put("requests_cas", cases.sum());
        m.put("requests_notify", notifies.sum());
        m.put("requests_fill", fills.sum());
        m.put("requests_diff", diffs.sum());
        m.put("diff_runs", diffRuns.sum());
        m.put("requests_acquire", acquires.sum());
        m.put("requests_forget", forgets.sum());
        m.put("acquire_ranges_invalidated", acquireRanges.sum());
        m.put("requests_refused", errors.sum());
        m.put("notification_holds", notificationHolds.sum());
        m.put("bytes_read", bytesRead.sum());
        m.put("bytes_written", bytesWritten.sum());
        m.put("io_work_ns", workNanos.sum());
        m.put("io_poll_ns", pollNanos.sum());
        m.put("io_block_ns", blockNanos.sum());
        m.put("io_batches", batches.sum());
        m.put("io_max_batch", maxBatch.get());
        return m;
    }
}
