package io.softcmi.wire;

/**
 * What a node tells a client about one segment it holds.
 *
 * @param id segment id (node scope; what {@code si_id} reports)
 * @param size maximum size in bytes
 * @param flags bit {@code 1 << ordinal} per {@code SegFlag}
 * @param brk current break (equal to {@code size} for a normal segment)
 * @param path file holding the segment's memory, or "" when it has none locally
 * @param dataOffset offset of byte 0 of the segment within that file
 * @param creatorSession session id of the creating context
 * @param creatorPid process id of the creating context
 * @param state 0 active, 1 quiesced, 2 marked for deletion
 * @param attachCount attaches across all processes of the node
 * @param exported whether a remote handle was made for it
 * @param imported whether it is a proxy of a segment homed elsewhere
 */
public record SegmentDescriptor(long id, long size, int flags, long brk, String path, long dataOffset,
        long creatorSession, long creatorPid, int state, int attachCount, boolean exported, boolean imported) {

    /** @param w where to encode this descriptor */
    public void encode(WireWriter w) {
        w.putLong(id).putLong(size).putInt(flags).putLong(brk).putString(path).putLong(dataOffset)
            .putLong(creatorSession).putLong(creatorPid).putInt(state).putInt(attachCount)
            .putBoolean(exported).putBoolean(imported);
    }

    /**
     * @param r where to decode from
     * @return the descriptor
     */
    public static SegmentDescriptor decode(WireReader r) {
        return new SegmentDescriptor(r.getLong(), r.getLong(), r.getInt(), r.getLong(), r.getString(4096),
            r.getLong(), r.getLong(), r.getLong(), r.getInt(), r.getInt(), r.getBoolean(), r.getBoolean());
    }
}
