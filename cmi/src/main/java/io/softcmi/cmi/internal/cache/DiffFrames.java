package io.softcmi.cmi.internal.cache;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
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
 * <p>One frame buffer, reused: {@link LineTransport#diff} is done with it when it returns. It
 * starts at {@link #FIRST_FRAME} bytes and doubles each time a write-back fills it, up to
 * {@link DataProtocol#MAX_DIFF_PAYLOAD}: a dense write-back goes in a few large requests, each of
 * which costs system calls at both ends, a reply and a round of the home's loop, and a cache that
 * only ever writes back a few lines keeps a small buffer. Used under its {@link SegmentCache}'s
 * lock only.
 */
final class DiffFrames {
    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int HEADER = DataProtocol.DIFF_RUN_HEADER;

    private final LineTransport transport;
    private final CacheStats stats;
    /** First frame size: a write-back of a few lines keeps a small buffer. */
    static final int FIRST_FRAME = 32 * 1024;

    /** Grows (doubling, up to {@link DataProtocol#MAX_DIFF_PAYLOAD}) each time a write-back fills it. */
    private MemorySegment frame = newFrame(FIRST_FRAME);
    private boolean full;
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
    void addLine(long base, byte[] data, long[] stored, int valid) {
        currentLine = base;
        addOffset(base);
        // A run holds only bytes this cache stored: sending any other byte would overwrite what
        // another node wrote there (false sharing must keep both nodes' bytes).
        for (int s = WriteMask.nextSet(stored, 0); s >= 0 && s < valid; ) {
            int e = Math.min(WriteMask.nextClear(stored, s), valid);
            addRun(base + s, data, s, e - s);
            s = e < valid ? WriteMask.nextSet(stored, e) : -1;
        }
        currentLine = -1;
    }

    private void addRun(long off, byte[] src, int from, int len) {
        while (len > 0) {
            int n;
            if (off == lastEnd && (n = fit(off, len, room())) > 0) {
                // continues the frame's last run: no header
                frame.set(LE_INT, lastHeader + 8, frame.get(LE_INT, lastHeader + 8) + n);
                MemorySegment.copy(src, from, frame, ValueLayout.JAVA_BYTE, pos, n);
                pos += n;
            } else if ((n = fit(off, len, room() - HEADER)) > 0) {
                lastHeader = pos;
                frame.set(LE_LONG, pos, off);
                frame.set(LE_INT, pos + 8, n);
                MemorySegment.copy(src, from, frame, ValueLayout.JAVA_BYTE, pos + HEADER, n);
                pos += HEADER + n;
            } else {
                full = true;
                flush();
                continue;
            }
            off += n;
            from += n;
            len -= n;
            lastEnd = off;
        }
    }

    private int room() {
        return (int) frame.byteSize() - pos;
    }

    /** Native memory (freed with the cache): a socket writes it without copying it first. */
    private static MemorySegment newFrame(int bytes) {
        return Arena.ofAuto().allocate(bytes, 8);
    }

    /**
     * @return the size after {@code size}: twice as large, or the largest frame once twice would
     *         pass it, or come within one first frame of it (512 KiB grows straight to the
     *         largest frame, 516 KiB, without a step of its own)
     */
    static int grown(int size) {
        long twice = 2L * size;
        return twice >= DataProtocol.MAX_DIFF_PAYLOAD - FIRST_FRAME ? DataProtocol.MAX_DIFF_PAYLOAD : (int) twice;
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
        flights.add(new SegmentCache.Flight(transport.diff(frame.asSlice(0, pos)), Arrays.copyOf(lineOffsets, lineCount)));
        stats.diffs.increment();
        stats.diffBytes.add(pos);
        pos = 0;
        lastHeader = -1;
        lastEnd = -1;
        lineCount = 0;
        if (full && frame.byteSize() < DataProtocol.MAX_DIFF_PAYLOAD) {
            // Dense write-backs go in fewer, larger requests: each costs system calls and a reply.
            frame = newFrame(grown((int) frame.byteSize()));
        }
        full = false;
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
