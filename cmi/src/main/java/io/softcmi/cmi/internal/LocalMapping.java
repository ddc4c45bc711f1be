package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * An attach ({@code seg_at}) of a segment homed on this node: the segment file mapped into this
 * process. Loads and stores go straight to the shared mapping through FFM; the hardware keeps
 * it coherent with every other process of the node, so there is nothing else on this path.
 *
 * <p>Typed accesses use native byte order and unaligned layouts (x86 and AArch64 do them at
 * the aligned cost); {@link #cas} needs 8-byte alignment. Accesses after {@code seg_dt} throw
 * {@link IllegalStateException} (the arena is closed), outside the segment
 * {@link IndexOutOfBoundsException}, as the binding asks.
 */
class LocalMapping implements CmiMapping {
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final VarHandle ATOMIC_LONG = ValueLayout.JAVA_LONG.varHandle();

    final ContextImpl context;
    final SegmentImpl segment;
    final long attachId;
    final Arena arena;
    final MemorySegment data;
    final boolean readOnly;
    final long segmentId;
    /**
     * The context, for a writable attach of a normal segment; null for a READ attach or an
     * extensible segment (whose break must be checked): lets atm_cas test all of it at once.
     */
    final ContextImpl casOwner;
    /**
     * Ranges of the segment in flux ({@code CMI_ERROR_CONSIST}, cmi(7) "Consistent data"), start
     * and end offsets in pairs, as the node last announced them; null while none is (the fast
     * path then costs one field read).
     */
    private volatile long[] flux;
    /**
     * The thread that may access without further checks: the first one that passed the
     * {@code cmi_enb} check while nothing was in flux (until it disables access or detaches). Null whenever ranges are in flux (every
     * access then checks them) or nobody passed yet. The fast path is this one volatile read
     * and a comparison.
     */
    private volatile Thread fastThread;

    LocalMapping(ContextImpl context, SegmentImpl segment, long attachId, Arena arena, MemorySegment data,
            boolean readOnly) {
        this.context = context;
        this.segment = segment;
        this.attachId = attachId;
        this.arena = arena;
        this.data = data;
        this.readOnly = readOnly;
        this.segmentId = segment.id();
        this.casOwner = readOnly || segment.extensible() ? null : context;
    }

    @Override
    public CmiSegment segment() {
        return segment;
    }

    @Override
    public long size() {
        return data.byteSize();
    }

    @Override
    public boolean readOnly() {
        return readOnly;
    }

    boolean attached() {
        return arena.scope().isAlive();
    }

    /**
     * Unmaps ({@code seg_dt}, or the context ending). Closing a shared arena waits until no
     * thread is inside an access; a thread still using the mapping afterwards gets
     * {@link IllegalStateException}, which the spec makes the caller's bug.
     */
    void unmap() {
        for (int attempt = 0; ; attempt++) {
            try {
                if (arena.scope().isAlive()) {
                    arena.close();
                }
                return;
            } catch (IllegalStateException busy) {
                if (attempt > 1000) {
                    throw busy;
                }
                Thread.onSpinWait();
            }
        }
    }

    /**
     * The node announced the ranges in flux of this segment.
     *
     * @param ranges start and end offsets in pairs; empty when none is
     */
    void setFlux(long[] ranges) {
        flux = ranges.length == 0 ? null : ranges;
        fastThread = null; // everyone checks again (and sees the ranges)
    }

    /**
     * The checks every access makes before it touches memory: the calling thread enabled CMI
     * access ({@code cmi_enb}: else ENABLE), and the bytes are not in flux (else CONSIST). While
     * nothing is in flux, the thread that passed first pays one volatile read and a comparison;
     * other threads pay a ThreadLocal lookup.
     */
    final void guard(long off, long len) {
        if (Thread.currentThread() != fastThread) {
            slowGuard(off, len);
        }
    }

    private void slowGuard(long off, long len) {
        // In the order a user meets them, as on a remote attach: detached, out of range, then ENABLE.
        if (!arena.scope().isAlive()) {
            throw new IllegalStateException("segment " + segmentId + " is detached");
        }
        java.util.Objects.checkFromIndexSize(off, len, data.byteSize());
        if (!ThreadState.current().enabled) {
            throw Errors.access(CmiAccessError.ENABLE, segmentId, off);
        }
        long[] f = flux;
        if (f != null) {
            checkFlux(off, len);
            return; // no fast path while ranges are in flux
        }
        if (fastThread == null) {
            // The first thread to pass keeps the fast path; others take this path each time
            // (a ThreadLocal lookup) rather than bounce the field between cores.
            Thread me = Thread.currentThread();
            fastThread = me;
            if (flux != null && fastThread == me) {
                fastThread = null; // ranges came in meanwhile: setFlux's reset may have come first
            }
        }
    }

    /**
     * The thread closed its access epoch ({@code cmi_enb(false)} or {@code fini}): it must pass
     * the full check again. Called by that thread, so its own next access sees this.
     *
     * @param t the calling thread
     */
    void forgetEnabled(Thread t) {
        if (fastThread == t) {
            fastThread = null;
        }
    }

    /** Throws CONSIST if {@code [off, off + len)} touches a range in flux. */
    final void checkFlux(long off, long len) {
        long[] f = flux;
        if (f != null) {
            long end = off + Math.max(1, len);
            for (int i = 0; i < f.length; i += 2) {
                if (f[i] < end && f[i + 1] > off) {
                    throw Errors.access(CmiAccessError.CONSIST, segmentId, off);
                }
            }
        }
    }

    final RuntimeException denied(long offset) {
        return Errors.access(CmiAccessError.PERM, segmentId, offset);
    }

    @Override
    public byte getByte(long off) {
        guard(off, 1);
        return data.get(BYTE, off);
    }

    @Override
    public void putByte(long off, byte v) {
        guard(off, 1);
        if (readOnly) {
            throw denied(off);
        }
        data.set(BYTE, off, v);
    }

    @Override
    public short getShort(long off) {
        guard(off, 2);
        return data.get(SHORT, off);
    }

    @Override
    public void putShort(long off, short v) {
        guard(off, 2);
        if (readOnly) {
            throw denied(off);
        }
        data.set(SHORT, off, v);
    }

    @Override
    public int getInt(long off) {
        guard(off, 4);
        return data.get(INT, off);
    }

    @Override
    public void putInt(long off, int v) {
        guard(off, 4);
        if (readOnly) {
            throw denied(off);
        }
        data.set(INT, off, v);
    }

    @Override
    public long getLong(long off) {
        guard(off, 8);
        return data.get(LONG, off);
    }

    @Override
    public void putLong(long off, long v) {
        guard(off, 8);
        if (readOnly) {
            throw denied(off);
        }
        data.set(LONG, off, v);
    }

    @Override
    public float getFloat(long off) {
        guard(off, 4);
        return data.get(FLOAT, off);
    }

    @Override
    public void putFloat(long off, float v) {
        guard(off, 4);
        if (readOnly) {
            throw denied(off);
        }
        data.set(FLOAT, off, v);
    }

    @Override
    public double getDouble(long off) {
        guard(off, 8);
        return data.get(DOUBLE, off);
    }

    @Override
    public void putDouble(long off, double v) {
        guard(off, 8);
        if (readOnly) {
            throw denied(off);
        }
        data.set(DOUBLE, off, v);
    }

    @Override
    public void get(long off, byte[] dst, int dstOff, int len) {
        guard(off, len);
        MemorySegment.copy(data, BYTE, off, dst, dstOff, len);
    }

    @Override
    public void put(long off, byte[] src, int srcOff, int len) {
        guard(off, len);
        if (readOnly) {
            throw denied(off);
        }
        MemorySegment.copy(src, srcOff, data, BYTE, off, len);
    }

    @Override
    public void get(long off, MemorySegment dst) {
        guard(off, dst.byteSize());
        MemorySegment.copy(data, off, dst, 0, dst.byteSize());
    }

    @Override
    public void put(long off, MemorySegment src) {
        guard(off, src.byteSize());
        if (readOnly) {
            throw denied(off);
        }
        MemorySegment.copy(src, 0, data, off, src.byteSize());
    }

    /**
     * {@code atm_cas} on this mapping: a sequentially consistent compare-and-exchange on the
     * shared mapping, which is also a full fence (so a store barrier, as the spec asks).
     *
     * @param off 8-byte aligned offset
     * @param cmpval expected value
     * @param swpval new value
     * @return the value before
     */
    long cas(long off, long cmpval, long swpval) {
        if ((off & 7) != 0) {
            throw Errors.fail(CmiError.INVAL, "atm_cas needs an 8-byte aligned address, got offset " + off);
        }
        if (readOnly) {
            throw denied(off);
        }
        return casChecked(off, cmpval, swpval);
    }

    /**
     * The compare-and-exchange itself, for a caller that has checked everything else. The
     * VarHandle checks bounds and alignment (IllegalArgumentException when misaligned).
     */
    final long casUnchecked(long off, long cmpval, long swpval) {
        if ((off & 7) != 0) {
            throw new IllegalArgumentException("misaligned"); // the caller turns this into INVAL
        }
        guard(off, 8);
        return (long) ATOMIC_LONG.compareAndExchange(data, off, cmpval, swpval);
    }

    /**
     * {@link #cas} once the caller has checked alignment and that the attach is writable.
     *
     * @param off 8-byte aligned offset
     * @param cmpval expected value
     * @param swpval new value
     * @return the value before
     */
    long casChecked(long off, long cmpval, long swpval) {
        guard(off, 8);
        return (long) ATOMIC_LONG.compareAndExchange(data, off, cmpval, swpval);
    }

    @Override
    public String toString() {
        return "mapping of " + segment + (readOnly ? " (read-only)" : "");
    }
}
