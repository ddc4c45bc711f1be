package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.wire.SegmentFileLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * An attach of an extensible segment ({@code CMI_SEG_EXTENSIBLE}): the whole maximum size is
 * mapped, and every access first checks the break the daemon publishes in the segment file's
 * header, so an access at or beyond it throws {@code CMI_ERROR_SEG_BRK} in every process.
 */
final class ExtensibleLocalMapping extends LocalMapping {
    private static final VarHandle BREAK = ValueLayout.JAVA_LONG.varHandle();
    private final MemorySegment header;

    ExtensibleLocalMapping(ContextImpl context, SegmentImpl segment, long attachId, Arena arena,
            MemorySegment header, MemorySegment data, boolean readOnly) {
        super(context, segment, attachId, arena, data, readOnly);
        this.header = header;
    }

    /** @return the break, read with acquire semantics */
    long currentBreak() {
        return (long) BREAK.getAcquire(header, SegmentFileLayout.BREAK_OFFSET);
    }

    private void check(long off, long len) {
        // Out of the segment entirely is not a CMI matter: let the mapping throw IOOBE.
        if (off >= 0 && len >= 0 && off + len <= data.byteSize() && off + len > currentBreak()) {
            throw Errors.access(CmiAccessError.SEG_BRK, segmentId, off);
        }
    }

    @Override public byte getByte(long off) { check(off, 1); return super.getByte(off); }
    @Override public void putByte(long off, byte v) { check(off, 1); super.putByte(off, v); }
    @Override public short getShort(long off) { check(off, 2); return super.getShort(off); }
    @Override public void putShort(long off, short v) { check(off, 2); super.putShort(off, v); }
    @Override public int getInt(long off) { check(off, 4); return super.getInt(off); }
    @Override public void putInt(long off, int v) { check(off, 4); super.putInt(off, v); }
    @Override public long getLong(long off) { check(off, 8); return super.getLong(off); }
    @Override public void putLong(long off, long v) { check(off, 8); super.putLong(off, v); }
    @Override public float getFloat(long off) { check(off, 4); return super.getFloat(off); }
    @Override public void putFloat(long off, float v) { check(off, 4); super.putFloat(off, v); }
    @Override public double getDouble(long off) { check(off, 8); return super.getDouble(off); }
    @Override public void putDouble(long off, double v) { check(off, 8); super.putDouble(off, v); }

    @Override
    public void get(long off, byte[] dst, int dstOff, int len) {
        check(off, len);
        super.get(off, dst, dstOff, len);
    }

    @Override
    public void put(long off, byte[] src, int srcOff, int len) {
        check(off, len);
        super.put(off, src, srcOff, len);
    }

    @Override
    public void get(long off, MemorySegment dst) {
        check(off, dst.byteSize());
        super.get(off, dst);
    }

    @Override
    public void put(long off, MemorySegment src) {
        check(off, src.byteSize());
        super.put(off, src);
    }

    @Override
    long casChecked(long off, long cmpval, long swpval) {
        check(off, 8);
        return super.casChecked(off, cmpval, swpval);
    }
}
