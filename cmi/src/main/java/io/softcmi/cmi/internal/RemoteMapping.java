package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * An attach of an imported (proxy) segment: the whole size is addressable, and every load,
 * store, bulk copy and CAS goes to the home node over a {@link RemoteConnection}, checked there
 * against the token. Nothing is cached yet, so cached and write-through imports behave alike
 * (every store reaches the home before it returns); a line cache slots in behind these methods
 * without changing the API.
 *
 * <p>Local checks first, in the order a user meets them: detached ({@link IllegalStateException}),
 * out of range ({@link IndexOutOfBoundsException}), store through a READ attach (PERM), thread
 * not enabled ({@code cmi_enb}: ENABLE), no token set (TOKEN); then the home's verdict.
 */
final class RemoteMapping implements CmiMapping {
    final ContextImpl context;
    final SegmentImpl segment;
    final long attachId;
    final NodeAddressImpl home;
    final long homeSegmentId;
    final boolean readOnly;
    private final long size;
    private volatile TokenImpl token;
    private volatile boolean attached = true;

    RemoteMapping(ContextImpl context, SegmentImpl segment, long attachId, NodeAddressImpl home, long homeSegmentId,
            long size, boolean readOnly, TokenImpl token) {
        this.context = context;
        this.segment = segment;
        this.attachId = attachId;
        this.home = home;
        this.homeSegmentId = homeSegmentId;
        this.size = size;
        this.readOnly = readOnly;
        this.token = token;
    }

    void setToken(TokenImpl t) {
        token = t;
    }

    void detach() {
        attached = false;
    }

    boolean attached() {
        return attached;
    }

    @Override public CmiSegment segment() { return segment; }
    @Override public long size() { return size; }
    @Override public boolean readOnly() { return readOnly; }

    private TokenImpl check(long off, long len, boolean write) {
        if (!attached) {
            throw new IllegalStateException("segment " + segment.id() + " is detached");
        }
        Objects.checkFromIndexSize(off, len, size);
        if (write && readOnly) {
            throw Errors.access(CmiAccessError.PERM, segment.id(), off);
        }
        if (!ThreadState.current().enabled) {
            throw Errors.access(CmiAccessError.ENABLE, segment.id(), off);
        }
        TokenImpl t = token;
        if (t == null) {
            throw Errors.access(CmiAccessError.TOKEN, segment.id(), off);
        }
        return t;
    }

    private void verdict(int status, long off) {
        if (status == 0) {
            return;
        }
        CmiAccessError e = status == RemoteConnection.STATUS_IO || status - 1 >= CmiAccessError.values().length
            ? CmiAccessError.TRANSIENT : CmiAccessError.values()[status - 1];
        throw Errors.access(e, segment.id(), off);
    }

    private long load(long off, int width) {
        TokenImpl t = check(off, width, false);
        RemoteConnection c = context.connection(home, segment.id(), off);
        synchronized (c) {
            verdict(c.load(homeSegmentId, t, off, width), off);
            return c.value();
        }
    }

    private void store(long off, int width, long bits) {
        TokenImpl t = check(off, width, true);
        verdict(context.connection(home, segment.id(), off).store(homeSegmentId, t, off, width, bits), off);
    }

    @Override public byte getByte(long off) { return (byte) load(off, 1); }
    @Override public void putByte(long off, byte v) { store(off, 1, v); }
    @Override public short getShort(long off) { return (short) load(off, 2); }
    @Override public void putShort(long off, short v) { store(off, 2, v); }
    @Override public int getInt(long off) { return (int) load(off, 4); }
    @Override public void putInt(long off, int v) { store(off, 4, v); }
    @Override public long getLong(long off) { return load(off, 8); }
    @Override public void putLong(long off, long v) { store(off, 8, v); }
    @Override public float getFloat(long off) { return Float.intBitsToFloat((int) load(off, 4)); }
    @Override public void putFloat(long off, float v) { store(off, 4, Float.floatToRawIntBits(v)); }
    @Override public double getDouble(long off) { return Double.longBitsToDouble(load(off, 8)); }
    @Override public void putDouble(long off, double v) { store(off, 8, Double.doubleToRawLongBits(v)); }

    @Override
    public void get(long off, byte[] dst, int dstOff, int len) {
        Objects.checkFromIndexSize(dstOff, len, dst.length);
        get(off, MemorySegment.ofArray(dst).asSlice(dstOff, len));
    }

    @Override
    public void put(long off, byte[] src, int srcOff, int len) {
        Objects.checkFromIndexSize(srcOff, len, src.length);
        put(off, MemorySegment.ofArray(src).asSlice(srcOff, len));
    }

    @Override
    public void get(long off, MemorySegment dst) {
        TokenImpl t = check(off, dst.byteSize(), false);
        verdict(context.connection(home, segment.id(), off).get(homeSegmentId, t, off, dst, 0, dst.byteSize()), off);
    }

    @Override
    public void put(long off, MemorySegment src) {
        TokenImpl t = check(off, src.byteSize(), true);
        verdict(context.connection(home, segment.id(), off).put(homeSegmentId, t, off, src, 0, src.byteSize()), off);
    }

    /**
     * Notification extension: the home checks it like an 8-byte store at {@code off} and hands
     * it to the segment's creator. Requests of one connection are served in order and every
     * earlier store has completed, so the creator sees them before the notification.
     */
    void sendNotification(long off, long value) {
        TokenImpl t = check(off, 8, true);
        verdict(context.connection(home, segment.id(), off).notification(homeSegmentId, t, off, value), off);
    }

    /** {@code atm_cas} at the home; it is a store barrier because every earlier store has completed. */
    long cas(long off, long cmpval, long swpval) {
        if ((off & 7) != 0) {
            throw Errors.fail(io.softcmi.cmi.CmiError.INVAL, "atm_cas needs an 8-byte aligned address, got offset " + off);
        }
        TokenImpl t = check(off, 8, true);
        RemoteConnection c = context.connection(home, segment.id(), off);
        synchronized (c) {
            verdict(c.cas(homeSegmentId, t, off, cmpval, swpval), off);
            return c.value();
        }
    }

    @Override
    public String toString() {
        return "remote mapping of " + segment + " homed at " + home + (readOnly ? " (read-only)" : "");
    }
}
