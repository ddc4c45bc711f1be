package io.softcmi.cmi.internal.cache;

import io.softcmi.wire.DataProtocol;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Packs the stored bytes of dirty lines into {@code DIFF} requests of at most
 * {@link DataProtocol#MAX_DIFF_PAYLOAD} bytes ({@code docs/cache.md} "Write-back"): runs
 * {@code long offset | int length | bytes} (little-endian), one per stretch of stored bytes, where
 * a stretch that continues at the start of the next line extends the run before it (a densely
 * written range goes as a few large runs, not one per line). A run cut at a frame's end is cut
 * at a word boundary, so an aligned store of up to 8 bytes always travels, and is applied at the
 * home, in one request.
 *
 * <p>One frame buffer, reused: {@link LineTransport#diff} is done with it when it returns. Used
 * under its {@link SegmentCache}'s lock only.
 */
final class DiffFrames {
    private static final VarHandle LE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LE_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int HEADER = DataProtocol.DIFF_RUN_HEADER;

    private final LineTransport transport;
    private final CacheStats stats;
    private final byte[] frame = new byte[DataProtocol.MAX_DIFF_PAYLOAD];
    private int pos;
    /** Where the frame's last run header is, or -1. */
    private int lastHeader = -1;
    /** The segment offset just after the frame's last run. */
    private long lastEnd = -1;
    /** Offsets of the lines whose runs are in this frame (reported if it fails). */
    private long[] lineOffsets = new long[64];
    private int lineCount;
    /** The line being added (its runs may continue in the next frame), or -1. */
    private long currentLine = -1;
    private List<SegmentCache.Flight> flights;

    DiffFrames(LineTransport transport, CacheStats stats) {
        this.transport = transport;
        this.stats = stats;
    }

    /** Starts a write-back: the frames sent until {@link #end} go to {@code out}. */
    void begin(List<SegmentCache.Flight> out) {
        flights = out;
    }

    /** Adds the bytes of {@code data[0, valid)} that {@code stored} marks, at segment offset {@code base}. */
    void addLine(long base, byte[] data, BitSet stored, int valid) {
        currentLine = base;
        addOffset(base);
        // A run holds only bytes this cache stored: sending any other byte would overwrite what
        // another node wrote there (false sharing must keep both nodes' bytes).
        for (int s = stored.nextSetBit(0); s >= 0 && s < valid; ) {
            int e = Math.min(stored.nextClearBit(s), valid);
            addRun(base + s, data, s, e - s);
            s = e < valid ? stored.nextSetBit(e) : -1;
        }
        currentLine = -1;
    }

    private void addRun(long off, byte[] src, int from, int len) {
        while (len > 0) {
            int n;
            if (off == lastEnd && (n = fit(off, len, frame.length - pos)) > 0) {
                // continues the frame's last run: no header
                LE_INT.set(frame, lastHeader + 8, (int) LE_INT.get(frame, lastHeader + 8) + n);
                System.arraycopy(src, from, frame, pos, n);
                pos += n;
            } else if ((n = fit(off, len, frame.length - pos - HEADER)) > 0) {
                lastHeader = pos;
                LE_LONG.set(frame, pos, off);
                LE_INT.set(frame, pos + 8, n);
                System.arraycopy(src, from, frame, pos + HEADER, n);
                pos += HEADER + n;
            } else {
                flush();
                continue;
            }
            off += n;
            from += n;
            len -= n;
            lastEnd = off;
        }
    }

    /** @return how much of a run of {@code len} bytes at {@code off} fits in {@code room}: all, or up to a word boundary */
    private static int fit(long off, int len, int room) {
        if (len <= room) {
            return len;
        }
        return room <= 0 ? 0 : (int) Math.max(0, ((off + room) & ~7L) - off);
    }

    private void addOffset(long base) {
        if (lineCount == lineOffsets.length) {
            lineOffsets = Arrays.copyOf(lineOffsets, lineCount * 2);
        }
        lineOffsets[lineCount++] = base;
    }

    /** Sends the frame built so far, if any. */
    private void flush() {
        if (pos == 0) {
            return;
        }
        flights.add(new SegmentCache.Flight(transport.diff(frame, pos), Arrays.copyOf(lineOffsets, lineCount)));
        stats.diffs.increment();
        stats.diffBytes.add(pos);
        pos = 0;
        lastHeader = -1;
        lastEnd = -1;
        lineCount = 0;
        if (currentLine >= 0) {
            addOffset(currentLine); // the line's other runs go in the next frame
        }
    }

    /** Sends the last frame and ends the write-back. */
    void end() {
        flush();
        lineCount = 0;
        flights = null;
    }
}
