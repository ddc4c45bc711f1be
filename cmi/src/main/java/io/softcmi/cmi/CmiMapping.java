package io.softcmi.cmi;

import java.lang.foreign.MemorySegment;

/**
 * An attached segment: what {@code seg_at} returns ({@link CmiContext#segAt(CmiSegment,
 * java.util.Set)}), the Java form of the address range the spec maps into the process. It is
 * visible to all threads of the process and stays usable until {@code seg_dt}
 * ({@link CmiContext#segDt(CmiMapping)}).
 *
 * <p>Offsets are byte offsets into the segment, from 0 to {@link #size()}. Typed accesses use the
 * native byte order and need no alignment. Accesses follow the spec's rules: to reach a remote
 * segment the calling thread must have enabled CMI access ({@code cmi_enb}), and the segment needs a
 * valid access token; failures are reported as the spec's {@code SIGSEGV}/{@code SEGV_CMI}, i.e. a
 * {@link CmiAccessException} thrown in the accessing thread.
 *
 * <p>Errors common to every access method:
 * <ul>
 *   <li>{@link IndexOutOfBoundsException} if the accessed bytes are not all within
 *       {@code [0, size())} (not a CMI matter, so not a {@link CmiAccessException});</li>
 *   <li>{@link IllegalStateException} if the mapping was detached ({@code seg_dt});</li>
 *   <li>{@link CmiAccessException} with {@link CmiAccessError#PERM} for a store through a
 *       {@link AttachFlag#READ} attach or a token that does not grant it;</li>
 *   <li>{@link CmiAccessException} with {@link CmiAccessError#SEG_BRK} for an access beyond the
 *       break point of an extensible segment;</li>
 *   <li>{@link CmiAccessException} with {@link CmiAccessError#ENABLE}, {@link CmiAccessError#TOKEN},
 *       {@link CmiAccessError#SINVAL}, {@link CmiAccessError#UE}, {@link CmiAccessError#TRANSIENT},
 *       {@link CmiAccessError#NOPAGE} or {@link CmiAccessError#CONSIST} as the spec describes
 *       for remote and recovering segments.</li>
 * </ul>
 */
public interface CmiMapping {
    /**
     * The segment this mapping attaches.
     *
     * @return the segment given to {@code seg_at}
     */
    CmiSegment segment();

    /**
     * The size of the mapped range in bytes: the segment's size (for an extensible segment its
     * maximum size; accesses beyond the break point still fail with {@link CmiAccessError#SEG_BRK}).
     *
     * @return the size in bytes
     */
    long size();

    /**
     * Whether the segment was attached with {@link AttachFlag#READ} ({@code CMI_SEG_READ}).
     *
     * @return {@code true} if stores through this mapping are refused
     */
    boolean readOnly();

    /**
     * Loads a {@code byte} (1 byte, native byte order) from the segment.
     *
     * @param off the byte offset into the segment
     * @return the value read
     * @throws IndexOutOfBoundsException if the byte are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    byte getByte(long off);

    /**
     * Stores a {@code byte} (1 byte, native byte order) into the segment.
     *
     * @param off the byte offset into the segment
     * @param v the value to write
     * @throws IndexOutOfBoundsException if the byte are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as
     *         the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void putByte(long off, byte v);

    /**
     * Loads a {@code short} (2 bytes, native byte order) from the segment.
     *
     * @param off the byte offset into the segment
     * @return the value read
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    short getShort(long off);

    /**
     * Stores a {@code short} (2 bytes, native byte order) into the segment.
     *
     * @param off the byte offset into the segment
     * @param v the value to write
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as
     *         the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void putShort(long off, short v);

    /**
     * Loads a {@code int} (4 bytes, native byte order) from the segment.
     *
     * @param off the byte offset into the segment
     * @return the value read
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    int getInt(long off);

    /**
     * Stores a {@code int} (4 bytes, native byte order) into the segment.
     *
     * @param off the byte offset into the segment
     * @param v the value to write
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as
     *         the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void putInt(long off, int v);

    /**
     * Loads a {@code long} (8 bytes, native byte order) from the segment.
     *
     * @param off the byte offset into the segment
     * @return the value read
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    long getLong(long off);

    /**
     * Stores a {@code long} (8 bytes, native byte order) into the segment.
     *
     * @param off the byte offset into the segment
     * @param v the value to write
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as
     *         the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void putLong(long off, long v);

    /**
     * Loads a {@code float} (4 bytes, native byte order) from the segment.
     *
     * @param off the byte offset into the segment
     * @return the value read
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    float getFloat(long off);

    /**
     * Stores a {@code float} (4 bytes, native byte order) into the segment.
     *
     * @param off the byte offset into the segment
     * @param v the value to write
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as
     *         the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void putFloat(long off, float v);

    /**
     * Loads a {@code double} (8 bytes, native byte order) from the segment.
     *
     * @param off the byte offset into the segment
     * @return the value read
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    double getDouble(long off);

    /**
     * Stores a {@code double} (8 bytes, native byte order) into the segment.
     *
     * @param off the byte offset into the segment
     * @param v the value to write
     * @throws IndexOutOfBoundsException if the bytes are not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as
     *         the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void putDouble(long off, double v);

    /**
     * Bulk load: copies {@code len} bytes of the segment, from {@code off}, into {@code dst}.
     *
     * @param off the byte offset into the segment
     * @param dst the array to fill
     * @param dstOff where in {@code dst} to start
     * @param len how many bytes to copy
     * @throws IndexOutOfBoundsException if the range is not within the mapping or {@code dst}
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void get(long off, byte[] dst, int dstOff, int len);

    /**
     * Bulk store: copies {@code len} bytes of {@code src}, from {@code srcOff}, into the segment at
     * {@code off}.
     *
     * @param off the byte offset into the segment
     * @param src the array to copy from
     * @param srcOff where in {@code src} to start
     * @param len how many bytes to copy
     * @throws IndexOutOfBoundsException if the range is not within the mapping or {@code src}
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as the
     *         spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void put(long off, byte[] src, int srcOff, int len);

    /**
     * Bulk load: copies {@code dst.byteSize()} bytes of the segment, from {@code off}, into
     * {@code dst}.
     *
     * @param off the byte offset into the segment
     * @param dst the memory to fill
     * @throws IndexOutOfBoundsException if the range is not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException if the spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void get(long off, MemorySegment dst);

    /**
     * Bulk store: copies all {@code src.byteSize()} bytes of {@code src} into the segment at
     * {@code off}.
     *
     * @param off the byte offset into the segment
     * @param src the memory to copy from
     * @throws IndexOutOfBoundsException if the range is not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException with {@link CmiAccessError#PERM} through a read-only attach or
     *         token, {@link CmiAccessError#SEG_BRK} beyond an extensible segment's break, or as the
     *         spec would raise {@code SIGSEGV}/{@code SEGV_CMI}
     */
    void put(long off, MemorySegment src);
}
