package io.softcmi.node;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Copies between a segment's mapping and a buffer (a request's input, a reply's output) so that
 * every aligned 8-byte word of the mapping inside the range moves with one 8-byte access, and a
 * thread storing or swapping that word at the same moment (a local process's {@code putLong}, an
 * {@code atm_cas} served by another I/O loop) is seen either before or after its store, never
 * half of each ({@code docs/cache.md}, "Words stay whole").
 *
 * <p>{@link MemorySegment#copy} gives that only when the source, the destination and the length
 * are all multiples of 8: a larger copy goes to the JVM's copy routine, which picks its unit from
 * the alignment of all three and copies a range whose buffer side is odd byte by byte. A reply
 * follows the replies already in the output buffer, so its payload is 8-aligned only when
 * every earlier payload's length was a multiple of 8; a request's payload follows the
 * requests before it in the input buffer, likewise. Here the mapping side decides: the bytes
 * before its first aligned word and after its last are copied as bytes (they are parts of words
 * that the range does not cover whole), each whole word with one aligned access on the mapping
 * and an unaligned one on the buffer. When both sides and the length are 8-aligned it is
 * {@link MemorySegment#copy}.
 *
 * <p>A plain access of an aligned {@code long} is one access on 64-bit HotSpot (never split;
 * JLS 17.7), as in {@link WordRuns}. Copies that the kernel makes (a large read sent straight
 * from the mapping, a large store read straight into it) are outside this class: see
 * {@code docs/cache.md}, "Limits".
 */
final class WordCopy {
    private WordCopy() {
    }

    /**
     * Copies {@code length} bytes of a mapping to a buffer.
     *
     * @param mapping the mapping's bytes (a slice: its address says where its words start)
     * @param from offset in {@code mapping}
     * @param buffer the destination
     * @param to offset in {@code buffer}
     * @param length bytes to copy
     */
    static void fromMapping(MemorySegment mapping, long from, MemorySegment buffer, long to, long length) {
        copy(mapping, from, ValueLayout.JAVA_LONG, buffer, to, ValueLayout.JAVA_LONG_UNALIGNED, length,
            head(mapping, from, buffer, to, length));
    }

    /**
     * Copies {@code length} bytes of a buffer into a mapping.
     *
     * @param buffer the source
     * @param from offset in {@code buffer}
     * @param mapping the mapping's bytes (a slice: its address says where its words start)
     * @param to offset in {@code mapping}
     * @param length bytes to copy
     */
    static void toMapping(MemorySegment buffer, long from, MemorySegment mapping, long to, long length) {
        copy(buffer, from, ValueLayout.JAVA_LONG_UNALIGNED, mapping, to, ValueLayout.JAVA_LONG, length,
            head(mapping, to, buffer, from, length));
    }

    /**
     * The copy: {@code head} bytes, then whole words read as {@code srcWord} and written as
     * {@code dstWord} (the aligned layout on the mapping's side), then the rest as bytes; all of
     * it at once when {@code head} is -1.
     */
    private static void copy(MemorySegment src, long from, ValueLayout.OfLong srcWord, MemorySegment dst, long to,
            ValueLayout.OfLong dstWord, long length, long head) {
        if (head < 0) {
            MemorySegment.copy(src, from, dst, to, length);
            return;
        }
        MemorySegment.copy(src, from, dst, to, head);
        long s = from + head;
        long d = to + head;
        long words = (length - head) >>> 3;
        for (long i = 0; i < words; i++) {
            long at = i << 3;
            dst.set(dstWord, d + at, src.get(srcWord, s + at));
        }
        long done = head + (words << 3);
        MemorySegment.copy(src, from + done, dst, to + done, length - done);
    }

    /**
     * @return the bytes before the mapping's first aligned word in the range (at most the
     *     length), or -1 if a plain copy moves every word whole (both sides and the length 8-aligned)
     */
    private static long head(MemorySegment mapping, long mappingOffset, MemorySegment buffer, long bufferOffset,
            long length) {
        long m = mapping.address() + mappingOffset;
        long b = buffer.address() + bufferOffset;
        if (((m | b | length) & 7) == 0) {
            return -1;
        }
        return Math.min(length, (8 - (m & 7)) & 7);
    }
}
