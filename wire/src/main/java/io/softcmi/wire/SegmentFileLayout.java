package io.softcmi.wire;

/**
 * Layout of a segment file in the node's shared-memory directory, shared by the daemon (which
 * creates and sizes it) and every local process (which maps it).
 *
 * <pre>
 *  offset  size  field
 *  0       8     magic "SOFTCMI1"
 *  8       8     segment id
 *  16      8     maximum size
 *  24      8     break (written by the daemon with release semantics, read with acquire)
 *  32      4     SegFlag bits
 *  4096    size  the segment's bytes (page aligned)
 * </pre>
 */
public final class SegmentFileLayout {
    /** File magic. */
    public static final long MAGIC = 0x534f4654434d4931L; // "SOFTCMI1"
    /** Offset of the magic. */
    public static final long MAGIC_OFFSET = 0;
    /** Offset of the segment id. */
    public static final long ID_OFFSET = 8;
    /** Offset of the maximum size. */
    public static final long SIZE_OFFSET = 16;
    /** Offset of the break. */
    public static final long BREAK_OFFSET = 24;
    /** Offset of the flags. */
    public static final long FLAGS_OFFSET = 32;
    /** Bytes before the segment's data: one page. */
    public static final long HEADER_SIZE = 4096;

    private SegmentFileLayout() {
    }
}
