package io.softcmi.smi;

import java.lang.foreign.MemorySegment;

/**
 * A shared memory region made by {@link Smi#createShreg}: one or more CMI segments, each homed on
 * its owner's node, seen as one range of offsets. Typed access by offset works as on a
 * {@code CmiMapping}: plain loads and stores, made visible to other processes by
 * {@link Smi#barrier()} (or by the memory copy functions' store barrier). Accesses outside
 * {@code [0, size())} throw {@link SmiException} with {@link SmiError#BADADR}.
 * <p>Methods are called from the thread that called {@link Smi#init}.
 */
public interface SmiRegion {
    /** @return the region id ({@code id} of {@code SMI_Create_shreg}) */
    int id();

    /** @return the region's type */
    RegionType type();

    /** @return the size in bytes as this process sees it */
    long size();

    /**
     * Implements {@code SMI_Region_layout}.
     *
     * @return the segments of the region
     * @throws SmiException {@link SmiError#PARAM} if the region was freed
     */
    RegionLayout layout();

    /**
     * Implements {@code SMI_Connect_shreg}: imports a region created with
     * {@link RegionFlag#DELAYED}. A no-op where already connected.
     *
     * @throws SmiException {@link SmiError#PARAM} if the region was freed;
     *         {@link SmiError#NOSEGMENT} if a segment of another node cannot be imported because
     *         the node holds its maximum of imports; {@link SmiError#NOMEM} if CMI is otherwise out
     *         of resources for a segment; {@link SmiError#OTHER} if CMI refuses it otherwise (its
     *         owner freed it)
     */
    void connect();

    /**
     * Implements {@code SMI_Free_shreg}: collective for collective types, between owner and
     * partner for {@code PT2PT}; frees all resources.
     *
     * @throws SmiException {@link SmiError#PARAM} if already freed; {@link SmiError#OTHER} for a
     *         {@code PT2PT} region whose other process entered {@code SMI_Finalize} without
     *         freeing it, so the rendezvous could never complete (checked while the wait blocks,
     *         every 250 ms; the region stays as it was here, and {@code SMI_Finalize} frees it).
     *         The manual names no code for a partner that finalized; {@code OTHER} is its "error
     *         not further stated".
     */
    void free();

    /**
     * Implements {@code SMI_Init_shregMMU}: a buddy allocator over the largest power-of-two part of
     * the region after its first page. Collective for collective region types; for a
     * {@code LOCAL} region, only its owner may call it. Afterwards only allocated memory of the
     * region may be used.
     *
     * @throws SmiException {@link SmiError#PARAM} if already initialized or not the owner;
     *         {@link SmiError#NOMEM} if the region is too small
     */
    void initMmu();

    /**
     * Implements {@code SMI_Imalloc} (individual; processes exclude each other with a mutex).
     *
     * @param size bytes
     * @return the start of the allocated area
     * @throws SmiException {@link SmiError#PARAM} without {@code initMmu} or for a size below 1;
     *         {@link SmiError#NOMEM} if no free area is large enough
     */
    SmiAddress imalloc(long size);

    /**
     * Implements {@code SMI_Cmalloc} (collective, same size everywhere): every process gets the
     * same address.
     *
     * @param size bytes
     * @return the start of the allocated area
     * @throws SmiException {@link SmiError#PARAM} for a non-collective region or without
     *         {@code initMmu}; {@link SmiError#NOMEM} if no free area is large enough. Process 0
     *         allocates: an error it meets (such as {@code PARAM} for a size below 1) is thrown
     *         there as such, and as {@code NOMEM} on the other processes, which learn only that
     *         the allocation failed
     */
    SmiAddress cmalloc(long size);

    /**
     * Implements {@code SMI_Ifree}.
     *
     * @param a an address {@link #imalloc} or {@link #cmalloc} returned
     * @throws SmiException {@link SmiError#PARAM} if it is not an allocated area
     */
    void ifree(SmiAddress a);

    /**
     * Implements {@code SMI_Cfree} (collective).
     *
     * @param a an address {@link #cmalloc} returned
     * @throws SmiException {@link SmiError#PARAM} if the region is not collective, or, on rank 0,
     *         which keeps the heap and frees the area, if it is not an allocated area (the other
     *         processes return)
     */
    void cfree(SmiAddress a);

    /**
     * The part of a {@code FRAGMENTED} region exported by one process (the C API's per-process
     * start address).
     *
     * @param rank a process rank
     * @return a view of that process's fragment
     * @throws SmiException {@link SmiError#PARAM} if not a {@code FRAGMENTED} region or no such rank
     */
    SmiRegion fragment(int rank);

    /**
     * {@code SMI_Q_SMI_REGION_SGMT_ID}: the internal id of this process's own segment of the
     * region, which a {@code REMOTE} or {@code RDMA} creator passes in {@link RegionInfo#sgmtId}.
     *
     * @return the id
     * @throws SmiException {@link SmiError#PARAM} if this process owns no segment of the region
     */
    long sgmtId();

    /**
     * @param offset byte offset
     * @return the address {@code (this, offset)}
     */
    default SmiAddress at(long offset) {
        return new SmiAddress(this, offset);
    }

    /**
     * Loads the byte at {@code off} of the region.
     *
     * @param off offset
     * @return the byte there
     */
    byte getByte(long off);

    /**
     * Stores the byte {@code v} at {@code off} of the region.
     *
     * @param off offset
     * @param v value
     */
    void putByte(long off, byte v);

    /**
     * Loads the short at {@code off} of the region.
     *
     * @param off offset
     * @return the short there
     */
    short getShort(long off);

    /**
     * Stores the short {@code v} at {@code off} of the region.
     *
     * @param off offset
     * @param v value
     */
    void putShort(long off, short v);

    /**
     * Loads the int at {@code off} of the region.
     *
     * @param off offset
     * @return the int there
     */
    int getInt(long off);

    /**
     * Stores the int {@code v} at {@code off} of the region.
     *
     * @param off offset
     * @param v value
     */
    void putInt(long off, int v);

    /**
     * Loads the long at {@code off} of the region.
     *
     * @param off offset (8-aligned within its segment)
     * @return the long there
     */
    long getLong(long off);

    /**
     * Stores the long {@code v} at {@code off} of the region.
     *
     * @param off offset
     * @param v value
     */
    void putLong(long off, long v);

    /**
     * Loads the float at {@code off} of the region.
     *
     * @param off offset
     * @return the float there
     */
    float getFloat(long off);

    /**
     * Stores the float {@code v} at {@code off} of the region.
     *
     * @param off offset
     * @param v value
     */
    void putFloat(long off, float v);

    /**
     * Loads the double at {@code off} of the region.
     *
     * @param off offset
     * @return the double there
     */
    double getDouble(long off);

    /**
     * Stores the double {@code v} at {@code off} of the region.
     *
     * @param off offset
     * @param v value
     */
    void putDouble(long off, double v);

    /**
     * Copies {@code dst.byteSize()} bytes from the region, across segment boundaries.
     *
     * @param off start offset in the region
     * @param dst where to copy to
     */
    void get(long off, MemorySegment dst);

    /**
     * Copies {@code src.byteSize()} bytes into the region, across segment boundaries.
     *
     * @param off start offset in the region
     * @param src what to copy
     */
    void put(long off, MemorySegment src);

    /**
     * Copies bytes out of the region.
     *
     * @param off start offset in the region
     * @param dst destination array
     * @param dstOff start in {@code dst}
     * @param len bytes
     */
    default void get(long off, byte[] dst, int dstOff, int len) {
        get(off, MemorySegment.ofArray(dst).asSlice(dstOff, len));
    }

    /**
     * Copies bytes into the region.
     *
     * @param off start offset in the region
     * @param src source array
     * @param srcOff start in {@code src}
     * @param len bytes
     */
    default void put(long off, byte[] src, int srcOff, int len) {
        put(off, MemorySegment.ofArray(src).asSlice(srcOff, len));
    }
}
