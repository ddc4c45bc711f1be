package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.smi.RegionLayout;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.SmiAddress;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * A shared region: its parts (one CMI segment each) laid end to end. Accesses find the part of an
 * offset (the last one used first, then a binary search) and go to its CMI mapping: direct shared
 * memory for segments of this node, the home's data path for others.
 */
final class RegionImpl implements SmiRegion {
    /** One segment of the region, as this process reaches it. */
    static final class Part {
        final long start;
        final long size;
        final long base;
        final int owner;
        final int node;
        final SegmentRef ref;
        final int slot;
        Segments.Own own;
        Segments.Foreign foreign;
        CmiMapping map;

        Part(long start, long size, long base, int owner, int node, SegmentRef ref, int slot) {
            this.start = start;
            this.size = size;
            this.base = base;
            this.owner = owner;
            this.node = node;
            this.ref = ref;
            this.slot = slot;
        }

        long end() {
            return start + size;
        }
    }

    private final Regions regions;
    private final int id;
    private final RegionType type;
    private final long size;
    private final long createdSize;
    private final Part[] parts;
    private final RegionImpl parent;
    private int last;
    private boolean freed;
    private Mmu mmu;
    private MemorySegment replica;

    RegionImpl(Regions regions, int id, RegionType type, long size, long createdSize, List<Part> parts, RegionImpl parent) {
        this.regions = regions;
        this.id = id;
        this.type = type;
        this.size = size;
        this.createdSize = createdSize;
        this.parts = parts.toArray(Part[]::new);
        this.parent = parent;
    }

    Part[] parts() {
        return parts;
    }

    private int peer = -1;

    /** @return the other process of a PT2PT region */
    int peer() {
        return peer;
    }

    void peer(int p) {
        peer = p;
    }

    boolean freed() {
        return parent != null ? parent.freed() : freed;
    }

    void markFreed() {
        freed = true;
    }

    boolean connected() {
        for (Part p : parts) {
            if (p.map == null) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public RegionType type() {
        return type;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public RegionLayout layout() {
        live();
        List<RegionLayout.Segment> segs = new ArrayList<>();
        for (Part p : parts) {
            segs.add(new RegionLayout.Segment(p.start, p.size, p.node, p.owner));
        }
        return new RegionLayout(createdSize, segs);
    }

    @Override
    public void connect() {
        live();
        regions.connect(this);
    }

    @Override
    public void free() {
        if (parent != null) {
            throw Errors.fail(SmiError.PARAM, "free the FRAGMENTED region, not one of its fragments");
        }
        live();
        regions.free(this);
    }

    @Override
    public void initMmu() {
        live();
        if (mmu != null) {
            throw Errors.fail(SmiError.PARAM, "region " + id + " already has a memory manager");
        }
        mmu = regions.initMmu(this);
    }

    private Mmu mmu() {
        live();
        if (mmu == null) {
            throw Errors.fail(SmiError.PARAM, "region " + id + " is not initialized for dynamic memory (SMI_Init_shregMMU)");
        }
        return mmu;
    }

    @Override
    public SmiAddress imalloc(long n) {
        return mmu().imalloc(n);
    }

    @Override
    public SmiAddress cmalloc(long n) {
        return mmu().cmalloc(n);
    }

    @Override
    public void ifree(SmiAddress a) {
        mmu().ifree(a);
    }

    @Override
    public void cfree(SmiAddress a) {
        mmu().cfree(a);
    }

    @Override
    public SmiRegion fragment(int rank) {
        live();
        if (type != RegionType.FRAGMENTED || parent != null) {
            throw Errors.fail(SmiError.PARAM, "region " + id + " is not a FRAGMENTED region");
        }
        Errors.checkRank(rank, parts.length, "rank");
        Part p = parts[rank];
        Part view = new Part(0, p.size, p.base, p.owner, p.node, p.ref, p.slot);
        view.map = p.map;
        return new RegionImpl(regions, id, type, p.size, p.size, List.of(view), this);
    }

    @Override
    public long sgmtId() {
        live();
        for (Part p : parts) {
            if (p.owner == regions.rank() && p.slot >= 0) {
                return ((long) p.owner << 32) | p.slot;
            }
        }
        throw Errors.fail(SmiError.PARAM, "this process exports no segment of region " + id);
    }

    private void live() {
        if (freed()) {
            throw Errors.fail(SmiError.PARAM, "region " + id + " was freed");
        }
    }

    /** The part holding {@code [off, off + width)}. */
    private Part part(long off, long width) {
        Part[] ps = parts();
        Part p = ps[last];
        if (off >= p.start && off + width <= p.start + p.size && p.map != null) {
            return p;
        }
        return slowPart(ps, off, width);
    }

    private Part slowPart(Part[] ps, long off, long width) {
        live();
        int lo = 0;
        int hi = ps.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (ps[mid].start <= off) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Part p = ps[lo];
        if (off < 0 || off < p.start || off + width > p.start + p.size) {
            throw Errors.fail(SmiError.BADADR, "offset " + off + " (+" + width + ") is outside region " + id + " (size "
                + size + ") or crosses a segment boundary");
        }
        if (p.map == null) {
            throw Errors.fail(SmiError.PARAM, "region " + id + " is not connected here (SMI_SHM_DELAYED: call connect)");
        }
        last = lo;
        return p;
    }

    @Override
    public byte getByte(long off) {
        if (replica != null) {
            return replica.get(ValueLayout.JAVA_BYTE, checked(off, 1));
        }
        Part p = part(off, 1);
        return p.map.getByte(p.base + off - p.start);
    }

    @Override
    public void putByte(long off, byte v) {
        if (replica != null) {
            replica.set(ValueLayout.JAVA_BYTE, checked(off, 1), v);
            return;
        }
        Part p = part(off, 1);
        p.map.putByte(p.base + off - p.start, v);
    }

    @Override
    public short getShort(long off) {
        if (replica != null) {
            return replica.get(ValueLayout.JAVA_SHORT_UNALIGNED, checked(off, 2));
        }
        Part p = part(off, 2);
        return p.map.getShort(p.base + off - p.start);
    }

    @Override
    public void putShort(long off, short v) {
        if (replica != null) {
            replica.set(ValueLayout.JAVA_SHORT_UNALIGNED, checked(off, 2), v);
            return;
        }
        Part p = part(off, 2);
        p.map.putShort(p.base + off - p.start, v);
    }

    @Override
    public int getInt(long off) {
        if (replica != null) {
            return replica.get(ValueLayout.JAVA_INT_UNALIGNED, checked(off, 4));
        }
        Part p = part(off, 4);
        return p.map.getInt(p.base + off - p.start);
    }

    @Override
    public void putInt(long off, int v) {
        if (replica != null) {
            replica.set(ValueLayout.JAVA_INT_UNALIGNED, checked(off, 4), v);
            return;
        }
        Part p = part(off, 4);
        p.map.putInt(p.base + off - p.start, v);
    }

    @Override
    public long getLong(long off) {
        if (replica != null) {
            return replica.get(ValueLayout.JAVA_LONG_UNALIGNED, checked(off, 8));
        }
        Part p = part(off, 8);
        return p.map.getLong(p.base + off - p.start);
    }

    @Override
    public void putLong(long off, long v) {
        if (replica != null) {
            replica.set(ValueLayout.JAVA_LONG_UNALIGNED, checked(off, 8), v);
            return;
        }
        Part p = part(off, 8);
        p.map.putLong(p.base + off - p.start, v);
    }

    @Override
    public float getFloat(long off) {
        if (replica != null) {
            return replica.get(ValueLayout.JAVA_FLOAT_UNALIGNED, checked(off, 4));
        }
        Part p = part(off, 4);
        return p.map.getFloat(p.base + off - p.start);
    }

    @Override
    public void putFloat(long off, float v) {
        if (replica != null) {
            replica.set(ValueLayout.JAVA_FLOAT_UNALIGNED, checked(off, 4), v);
            return;
        }
        Part p = part(off, 4);
        p.map.putFloat(p.base + off - p.start, v);
    }

    @Override
    public double getDouble(long off) {
        if (replica != null) {
            return replica.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, checked(off, 8));
        }
        Part p = part(off, 8);
        return p.map.getDouble(p.base + off - p.start);
    }

    @Override
    public void putDouble(long off, double v) {
        if (replica != null) {
            replica.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, checked(off, 8), v);
            return;
        }
        Part p = part(off, 8);
        p.map.putDouble(p.base + off - p.start, v);
    }

    /** Whether CMI's bulk calls take this memory directly (native, or a byte[] on the heap). */
    private static boolean direct(MemorySegment m) {
        return m.isNative() || m.heapBase().orElse(null) instanceof byte[];
    }

    private long checked(long off, long width) {
        if (off < 0 || off > size - width) {
            throw Errors.fail(SmiError.BADADR, "offset " + off + " (+" + width + ") is outside region " + id + " (size "
                + size + ")");
        }
        return off;
    }

    /** The private copy while the region is replicated ({@code SMI_Switch_to_replication}), else null. */
    MemorySegment replica() {
        return replica;
    }

    void replica(MemorySegment r) {
        replica = r;
    }

    @Override
    public void get(long off, MemorySegment dst) {
        if (replica != null) {
            checkRange(off, dst.byteSize());
            MemorySegment.copy(replica, off, dst, 0, dst.byteSize());
            return;
        }
        sharedGet(off, dst);
    }

    /** Copies out of the shared segments, even while replicated. */
    void sharedGet(long off, MemorySegment dst) {
        if (!direct(dst)) {
            MemorySegment bounce = MemorySegment.ofArray(new byte[Math.toIntExact(dst.byteSize())]);
            sharedGet(off, bounce);
            dst.copyFrom(bounce);
            return;
        }
        long n = dst.byteSize();
        checkRange(off, n);
        long done = 0;
        while (done < n) {
            Part p = part(off + done, 1);
            long chunk = Math.min(n - done, p.end() - (off + done));
            p.map.get(p.base + off + done - p.start, dst.asSlice(done, chunk));
            done += chunk;
        }
    }

    @Override
    public void put(long off, MemorySegment src) {
        if (replica != null) {
            checkRange(off, src.byteSize());
            MemorySegment.copy(src, 0, replica, off, src.byteSize());
            return;
        }
        sharedPut(off, src);
    }

    /** Copies into the shared segments, even while replicated. */
    void sharedPut(long off, MemorySegment src) {
        if (!direct(src)) {
            sharedPut(off, MemorySegment.ofArray(new byte[Math.toIntExact(src.byteSize())]).copyFrom(src));
            return;
        }
        long n = src.byteSize();
        checkRange(off, n);
        long done = 0;
        while (done < n) {
            Part p = part(off + done, 1);
            long chunk = Math.min(n - done, p.end() - (off + done));
            p.map.put(p.base + off + done - p.start, src.asSlice(done, chunk));
            done += chunk;
        }
    }

    private void checkRange(long off, long n) {
        live();
        if (off < 0 || n < 0 || off > size - n) {
            throw Errors.fail(SmiError.BADADR, "range [" + off + ", +" + n + ") is outside region " + id + " (size " + size
                + ")");
        }
    }

    @Override
    public String toString() {
        return "SmiRegion[" + id + " " + type + ", " + size + " bytes, " + parts.length + " segments]";
    }
}
