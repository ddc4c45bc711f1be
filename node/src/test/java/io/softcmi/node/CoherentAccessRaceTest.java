package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.SegmentFileLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The home's coherent requests ({@link CoherentAccess}) of two data connections served at once
 * by two threads, as two I/O loops serve them: one applies DIFFs, the other fills and acquires.
 * What a reader gets must keep release consistency: a fill's bytes are never older than its
 * epoch, an acquire is never answered in the middle of a DIFF, and a line an acquire does not
 * name still holds what was last written to it. Bounded in count, no timing.
 */
class CoherentAccessRaceTest {
    private static final byte[] WRITER_NODE = {1, 1, 1, 1};
    private static final byte[] READER_NODE = {2, 2, 2, 2};
    private static final long SEGMENT = 300;
    private static final long TOKEN = 9;
    private static final long SECRET_HI = 0x1111;
    private static final long SECRET_LO = 0x2222;
    private static final long WRITER_CACHE = 0xAAAA;
    private static final long READER_CACHE = 0xBBBB;
    private static final int LINE = 1024;
    /** Bytes of a line a DIFF writes (the line's first quarter: lines are logged apart, LOG_GAP). */
    private static final int RUN = 256;
    private static final int LINES = 16;
    private static final long SIZE = (long) LINE * LINES;

    private final Arena arena = Arena.ofShared();
    private final NodeState state = new NodeState(new NodeConfig(), new NodeAddressImpl(new byte[16], "", 0), null);
    private final HomeAccess access = new HomeAccess(state);
    private final MemorySegment data;

    CoherentAccessRaceTest() {
        MemorySegment whole = arena.allocate(SegmentFileLayout.HEADER_SIZE + SIZE, 4096);
        RemoteTarget target = new RemoteTarget(SEGMENT, SIZE, false, whole);
        data = target.data;
        state.targets.put(SEGMENT, target);
        state.tokens.put(TOKEN, new HomeToken(TOKEN, SEGMENT, null, 0b111, 0, SIZE, SECRET_HI, SECRET_LO, 1));
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private CoherentAccess connection(byte[] node) {
        return new CoherentAccess(new DataHandshake.DataClient(node, 1), access, new DataPathStats());
    }

    private static ByteBuffer request(long cacheId, long offset, long a) {
        ByteBuffer b = ByteBuffer.allocateDirect(DataProtocol.REQUEST_HEADER + DataProtocol.MAX_DIFF_PAYLOAD)
            .order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(16, SEGMENT).putLong(24, TOKEN).putLong(32, SECRET_HI).putLong(40, SECRET_LO);
        b.putLong(48, offset).putLong(56, a).putLong(64, cacheId);
        return b;
    }

    /** Frame {@code k} writes the lines whose bit is set here (at least one). */
    private static int linesOf(long k) {
        int m = (int) (k * 0x9E3779B97F4A7C15L >>> 40) & ((1 << LINES) - 1);
        return m == 0 ? 1 << (int) (k % LINES) : m;
    }

    /** The DIFF of frame {@code k}: the first {@link #RUN} bytes of each of its lines, every word {@code k}. */
    private static int diffFrame(ByteBuffer in, long k) {
        int at = DataProtocol.REQUEST_HEADER;
        int lines = linesOf(k);
        for (int j = 0; j < LINES; j++) {
            if ((lines & 1 << j) != 0) {
                in.putLong(at, (long) j * LINE).putInt(at + 8, RUN);
                at += DataProtocol.DIFF_RUN_HEADER;
                for (int w = 0; w < RUN; w += 8) {
                    in.putLong(at + w, k);
                }
                at += RUN;
            }
        }
        return at - DataProtocol.REQUEST_HEADER;
    }

    /** The writer's record: epochAfter[k] is the directory's epoch once frame k was logged. */
    private static final class History {
        final long[] epochAfter;
        final AtomicLong done = new AtomicLong(); // frames applied (published after epochAfter)

        History(int frames) {
            epochAfter = new long[frames + 1];
        }

        /** @return the frame after which the epoch is {@code epoch}, or -1 if it falls inside a frame; waits for the writer */
        long frameAt(long epoch) {
            long n;
            while (epochAfter[(int) (n = Math.min(done.get(), epochAfter.length - 1))] < epoch) {
                if (done.get() >= epochAfter.length) {
                    throw new IllegalStateException("the writer failed");
                }
                Thread.onSpinWait();
            }
            int lo = 0;
            int hi = (int) n;
            while (lo < hi) { // the first frame after which the epoch is at least this one
                int mid = (lo + hi) >>> 1;
                if (epochAfter[mid] < epoch) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return epochAfter[lo] == epoch ? lo : -1;
        }

        /** @return what the first RUN bytes of line j held once frame k was applied */
        static long valueAfter(long k, int j) {
            for (long f = k; f > 0; f--) {
                if ((linesOf(f) & 1 << j) != 0) {
                    return f;
                }
            }
            return 0;
        }
    }

    private Thread writer(int frames, History h, AtomicReference<Throwable> failed) {
        CoherentAccess w = connection(WRITER_NODE);
        return Thread.ofPlatform().start(() -> {
            try {
                ByteBuffer in = request(WRITER_CACHE, 0, 0);
                for (int k = 1; k <= frames; k++) {
                    int payload = diffFrame(in, k);
                    byte status = w.diff(in, 0, payload);
                    if (status != DataProtocol.STATUS_OK) {
                        throw new AssertionError("diff " + k + ": status " + status);
                    }
                    h.epochAfter[k] = h.epochAfter[k - 1] + Integer.bitCount(linesOf(k));
                    h.done.set(k);
                }
            } catch (Throwable t) {
                failed.set(t);
                h.done.set(Long.MAX_VALUE / 2);
            }
        });
    }

    /**
     * A reader fills lines (epoch, then bytes, as {@code DataConnection} serves a FILL) while
     * DIFFs land: each word it gets is at least as new as the fill's epoch says; and an acquire
     * since that epoch, made right after, names the line unless the bytes are exactly what was
     * written at the acquire's epoch, and is never answered between two log entries of one DIFF.
     */
    @Test
    void shouldNeverReturnAFillOlderThanItsEpochNorKeepALineAnAcquireShouldDrop() throws InterruptedException {
        int frames = Integer.getInteger("softcmi.test.rounds", 20_000);
        History h = new History(frames);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CoherentAccess r = connection(READER_NODE);
        Thread w = writer(frames, h, failed);
        List<String> wrong = new ArrayList<>();
        int fills = 0;
        try {
            ByteBuffer fill = request(READER_CACHE, 0, LINE);
            ByteBuffer acq = request(READER_CACHE, 0, 0);
            ByteBuffer out = ByteBuffer.allocateDirect(DataProtocol.REPLY_HEADER + 16 * 300).order(ByteOrder.LITTLE_ENDIAN);
            MemorySegment copy = Arena.ofAuto().allocate(LINE, 8);
            while (h.done.get() < frames && wrong.size() < 10) {
                int j = ThreadLocalRandom.current().nextInt(LINES);
                long offset = (long) j * LINE;
                fill.putLong(48, offset);
                long epoch = r.filled(fill, 0, SEGMENT, offset, LINE) >>> 1;
                WordCopy.fromMapping(data.asSlice(offset, LINE), 0, copy, 0, LINE);
                fills++;
                long k = h.frameAt(epoch);
                if (k < 0) {
                    wrong.add("fill of line " + j + " answered epoch " + epoch + ", inside a DIFF");
                    continue;
                }
                long atFill = History.valueAfter(k, j);
                for (int wd = 0; wd < RUN; wd += 8) {
                    long v = copy.get(ValueLayout.JAVA_LONG, wd);
                    if (v < atFill) {
                        wrong.add("fill of line " + j + " at epoch " + epoch + " (frame " + k + ") held " + v
                            + " at byte " + wd + ", written " + atFill);
                        break;
                    }
                }
                // The acquire that follows, since the fill's epoch.
                acq.putLong(56, epoch);
                out.clear();
                r.acquire(acq, 0, 1, out);
                long now = out.getLong(16);
                int ranges = (out.position() - DataProtocol.REPLY_HEADER) / 16;
                boolean named = false;
                for (int i = 0; i < ranges; i++) {
                    long s = out.getLong(DataProtocol.REPLY_HEADER + 16 * i);
                    long e = out.getLong(DataProtocol.REPLY_HEADER + 16 * i + 8);
                    named |= s < offset + RUN && e > offset;
                }
                long kNow = h.frameAt(now);
                if (kNow < 0) {
                    wrong.add("acquire answered epoch " + now + ", inside a DIFF");
                    continue;
                }
                if (!named) {
                    long atAcquire = History.valueAfter(kNow, j);
                    for (int wd = 0; wd < RUN; wd += 8) {
                        long v = copy.get(ValueLayout.JAVA_LONG, wd);
                        if (v != atAcquire) {
                            wrong.add("acquire since " + epoch + " at " + now + " kept line " + j + " holding " + v
                                + " at byte " + wd + ", written " + atAcquire);
                            break;
                        }
                    }
                }
            }
        } finally {
            h.done.set(Long.MAX_VALUE / 2);
            w.join();
        }
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        assertTrue(fills > 0);
        assertEquals(List.of(), wrong, "after " + fills + " fills");
    }

    /**
     * An acquire that comes rarely, so that its epoch is often older than the log (4096 writes):
     * it must then answer the whole segment; otherwise every line it does not name must hold, in
     * a copy made right after the acquire before, exactly what was written at its epoch.
     */
    @Test
    void shouldNameEveryLineWrittenSinceAnAcquireAlsoWhenTheLogWasTrimmed() throws InterruptedException {
        int frames = Integer.getInteger("softcmi.test.rounds", 20_000);
        History h = new History(frames);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CoherentAccess r = connection(READER_NODE);
        Thread w = writer(frames, h, failed);
        List<String> wrong = new ArrayList<>();
        int acquires = 0;
        int wholes = 0;
        try {
            ByteBuffer acq = request(READER_CACHE, 0, 0);
            ByteBuffer out = ByteBuffer.allocateDirect(DataProtocol.REPLY_HEADER + 16 * 300).order(ByteOrder.LITTLE_ENDIAN);
            long[][] cached = new long[LINES][RUN / 8];
            long since = 0; // nothing cached: every line is read after the first acquire
            boolean[] valid = new boolean[LINES];
            while (h.done.get() < frames && wrong.size() < 10) {
                if (ThreadLocalRandom.current().nextInt(64) == 0) {
                    // wait until the writer logged past the log's capacity since our epoch
                    long target = since + CoherenceDirectory.LOG_CAPACITY + 1;
                    while (h.done.get() < frames && h.epochAfter[(int) Math.min(h.done.get(), frames)] < target) {
                        Thread.onSpinWait();
                    }
                }
                acq.putLong(56, since);
                out.clear();
                r.acquire(acq, 0, 1, out);
                acquires++;
                long now = out.getLong(16);
                int ranges = (out.position() - DataProtocol.REPLY_HEADER) / 16;
                long k = h.frameAt(now);
                if (k < 0) {
                    wrong.add("acquire answered epoch " + now + ", inside a DIFF");
                    continue;
                }
                for (int i = 0; i < ranges; i++) {
                    long s = out.getLong(DataProtocol.REPLY_HEADER + 16 * i);
                    long e = out.getLong(DataProtocol.REPLY_HEADER + 16 * i + 8);
                    if (s == 0 && e == SIZE) {
                        wholes++;
                    }
                    for (int j = 0; j < LINES; j++) {
                        if (s < (long) j * LINE + RUN && e > (long) j * LINE) {
                            valid[j] = false;
                        }
                    }
                }
                for (int j = 0; j < LINES; j++) {
                    if (valid[j]) {
                        long expected = History.valueAfter(k, j);
                        for (int wd = 0; wd < RUN / 8; wd++) {
                            if (cached[j][wd] != expected) {
                                wrong.add("acquire since " + since + " at " + now + " kept line " + j + " holding "
                                    + cached[j][wd] + ", written " + expected);
                                break;
                            }
                        }
                    } else { // refilled after the acquire
                        for (int wd = 0; wd < RUN / 8; wd++) {
                            cached[j][wd] = data.get(ValueLayout.JAVA_LONG, (long) j * LINE + wd * 8L);
                        }
                        valid[j] = true;
                    }
                }
                since = now;
            }
        } finally {
            h.done.set(Long.MAX_VALUE / 2);
            w.join();
        }
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        assertTrue(acquires > 0);
        assertEquals(List.of(), wrong, "after " + acquires + " acquires, " + wholes + " of them the whole segment");
    }

    /**
     * A CAS (one connection) increments the high half of a word while DIFFs of another write its
     * low half and the rest of its line: no increment is lost (a DIFF writes only the bytes its
     * runs carry), and the low half ends as the last DIFF wrote it.
     */
    @Test
    void shouldKeepEveryCasWhileADiffWritesTheOtherBytesOfItsWordAndLine() throws InterruptedException {
        int rounds = Integer.getInteger("softcmi.test.rounds", 20_000);
        CoherentAccess casser = connection(READER_NODE);
        CoherentAccess differ = connection(WRITER_NODE);
        MemorySegment word = data.asSlice(LINE, 8);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread d = Thread.ofPlatform().start(() -> {
            try {
                ByteBuffer in = request(WRITER_CACHE, 0, 0);
                for (int k = 1; k <= rounds; k++) {
                    int at = DataProtocol.REQUEST_HEADER;
                    // bytes 0..3 of the word (low half, little-endian), then bytes 8.. of the line
                    in.putLong(at, LINE).putInt(at + 8, 4).putInt(at + 12, k);
                    at += DataProtocol.DIFF_RUN_HEADER + 4;
                    in.putLong(at, LINE + 8).putInt(at + 8, 64);
                    for (int b = 0; b < 64; b += 8) {
                        in.putLong(at + DataProtocol.DIFF_RUN_HEADER + b, k);
                    }
                    at += DataProtocol.DIFF_RUN_HEADER + 64;
                    byte status = differ.diff(in, 0, at - DataProtocol.REQUEST_HEADER);
                    if (status != DataProtocol.STATUS_OK) {
                        throw new AssertionError("diff " + k + ": status " + status);
                    }
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        int swapped = 0;
        try {
            while (swapped < rounds) {
                long seen = word.get(ValueLayout.JAVA_LONG, 0);
                long next = seen + (1L << 32);
                if (casser.cas(SEGMENT, LINE, word, seen, next) == seen) {
                    swapped++;
                }
            }
        } finally {
            d.join();
        }
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        long end = word.get(ValueLayout.JAVA_LONG, 0);
        assertEquals(rounds, end >>> 32, "increments of the high half");
        assertEquals(rounds, (int) end, "the low half as the last diff wrote it");
    }
}
