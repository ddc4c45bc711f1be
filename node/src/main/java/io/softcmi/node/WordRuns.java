package io.softcmi.node;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Applies the byte runs of one {@code DIFF} to a segment's mapping so that no aligned 8-byte
 * word is ever seen half-written ({@code docs/cache.md}). A cache's write-back sends only the
 * bytes that changed, so one 8-byte store often arrives as several runs (say byte 0 and bytes
 * 4 to 7): copied one run after the other, or byte by byte from an unaligned input, a reader at
 * the home or a concurrent fill could see the word with some of its new bytes and some old ones,
 * a value nobody stored. Here the runs that touch one word are merged and written to it at once:
 * each whole word with one aligned 8-byte store (runs of whole words in a tight loop), part of
 * a word with a compare-and-set loop that keeps
 * the other bytes (another writer's, in false sharing) as they are.
 *
 * <p>Runs must come in increasing offset order within a word (a cache's diff does). One
 * instance per request; not thread-safe.
 */
final class WordRuns {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final MemorySegment target;
    private long pendingWord = -1;
    private long pendingMask;
    private long pendingBits;

    /** @param target the whole segment's mapping, 8-byte aligned at offset 0 */
    WordRuns(MemorySegment target) {
        this.target = target;
    }

    /**
     * Writes {@code length} bytes of {@code src} at {@code from} to {@code [offset, offset + length)}.
     *
     * @throws IndexOutOfBoundsException if the range is outside the mapping
     */
    void run(MemorySegment src, long from, long offset, long length) {
        long end = offset + length;
        if (offset < 0 || length < 0 || end > target.byteSize()) {
            throw new IndexOutOfBoundsException("run [" + offset + ", " + end + ") outside " + target.byteSize());
        }
        long p = offset;
        long wholeEnd = Math.min(end, target.byteSize()) & ~7L;
        while (p < end) {
            // A part of a word (the run's head or tail, never a whole word) gathers into the
            // pending word; whole words go out at once.
            if ((p & 7) == 0 && p + 8 <= wholeEnd) {
                // Whole aligned words, the dense case: one 8-byte store each in a tight loop. A
                // plain store of an aligned long is one access on 64-bit HotSpot (never split,
                // JLS 17.7), about twice as fast here as an opaque or release VarHandle store and
                // eight times a volatile one (a fence each). Their order among themselves does
                // not matter: a diff promises nothing until its acknowledgement, and the
                // directory's monitor, released after the diff, orders it before later diffs.
                flush();
                long s = from + (p - offset);
                int words = (int) ((wholeEnd - p) >>> 3); // a run fits in one frame: an int count
                for (int i = 0; i < words; i++) { // int-counted: the JIT unrolls it and drops the bounds checks
                    long at = (long) i << 3;
                    target.set(ValueLayout.JAVA_LONG, p + at, src.get(ValueLayout.JAVA_LONG_UNALIGNED, s + at));
                }
                p += (long) words << 3;
                continue;
            }
            long word = p & ~7L;
            int lo = (int) (p - word);
            int hi = (int) Math.min(8, end - word);
            if (word + 8 > target.byteSize()) {
                flush(); // the segment's last bytes are no whole word: plain bytes
                MemorySegment.copy(src, from + (p - offset), target, p, hi - lo);
            } else {
                if (pendingWord != word) {
                    flush();
                    pendingWord = word;
                }
                for (int i = lo; i < hi; i++) {
                    int shift = LITTLE ? 8 * i : 8 * (7 - i);
                    long b = src.get(ValueLayout.JAVA_BYTE, from + (word + i - offset)) & 0xFFL;
                    pendingMask |= 0xFFL << shift;
                    pendingBits = pendingBits & ~(0xFFL << shift) | b << shift;
                }
            }
            p = word + hi;
        }
    }

    /** Writes the part-word gathered so far; call once after the last run. */
    void flush() {
        if (pendingWord < 0) {
            return;
        }
        long old;
        do {
            old = (long) WORD.getVolatile(target, pendingWord);
        } while (!WORD.compareAndSet(target, pendingWord, old, old & ~pendingMask | pendingBits));
        pendingWord = -1;
        pendingMask = 0;
        pendingBits = 0;
    }
}
