package io.softcmi.vmmc;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.notify.DirectInlet;
import io.softcmi.cmi.notify.Notifications;
import io.softcmi.vmmc.internal.Directory;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The receive buffers one {@link Vmmc} exports: {@code vmmc_ExportRecvBuf} and
 * {@code vmmc_UnexportRecvBuf} (segment, token, directory entry), the check that a handle is a
 * live export of this process, and their withdrawal when the endpoint closes. Callers hold the
 * {@link Vmmc}'s monitor.
 */
final class Exports {
    private static final int WORD = Vmmc.WORD;
    private static final int PAGE = Vmmc.PAGE;

    /** How long UnexportRecvBuf waits for the messages the home accepted before it to be delivered. */
    private static final long FLUSH_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    private final Vmmc v;
    private final Map<Integer, ExportHandle> byId = new ConcurrentHashMap<>();

    Exports(Vmmc v) {
        this.v = v;
    }

    /** {@code vmmc_ExportRecvBuf}, as documented on {@link Vmmc#exportRecvBuf}. */
    ExportHandle export(MemorySegment buf, long nwords, int rbufid, VmmcCallback proc, Set<BufFlag> flags, int perm) {
        if (nwords <= 0 || nwords > 0x7FFF_FFFFL) {
            throw new VmmcException(VmmcResult.BAD_SIZE, "nwords " + nwords);
        }
        if (buf == null || flags == null) {
            throw new VmmcException(VmmcResult.BAD_ARG, "null buffer or flags");
        }
        if (buf.address() % WORD != 0) {
            throw new VmmcException(VmmcResult.BAD_ALIGNMENT, "buffer address");
        }
        if (buf.byteSize() < nwords * WORD) {
            throw new VmmcException(VmmcResult.BAD_ARG, "buffer holds fewer than " + nwords + " words");
        }
        int modes = (flags.contains(BufFlag.WRITE_ONLY) ? 1 : 0) + (flags.contains(BufFlag.READ_ONLY) ? 1 : 0)
            + (flags.contains(BufFlag.READWRITE) ? 1 : 0);
        if (modes != 1) {
            throw new VmmcException(VmmcResult.BAD_ARG, "flags need exactly one of WRITE_ONLY, READ_ONLY, READWRITE: " + flags);
        }
        if (perm != 0) {
            throw new VmmcException(VmmcResult.NOT_IMPLEMENTED, "export permissions");
        }
        if (byId.containsKey(rbufid)) {
            throw new VmmcException(VmmcResult.BUF_ALREADY_EXISTS, "rbufid " + rbufid);
        }
        for (ExportHandle e : byId.values()) {
            if (overlaps(e.buf.asSlice(0, e.nwords * WORD), buf.asSlice(0, nwords * WORD))) {
                throw new VmmcException(VmmcResult.OVERLAPPED_BUFS, "with rbufid " + e.rbufid);
            }
        }
        Set<Access> access = flags.contains(BufFlag.READ_ONLY) ? EnumSet.of(Access.READ)
            : flags.contains(BufFlag.WRITE_ONLY) ? EnumSet.of(Access.WRITE) : EnumSet.of(Access.READ, Access.WRITE);
        // A non-redirectable buffer at the start of allocate()'s memory is its segment: messages
        // land in it directly. Redirection needs the copy (a redirected word must not reach the
        // buffer), so a REDIRECTABLE buffer always gets a segment of its own.
        ReceiveMemory.Backing direct = flags.contains(BufFlag.REDIRECTABLE) ? null : v.memory.backing(buf, nwords * WORD);
        CmiSegment seg = null;
        CmiMapping m = null;
        RemoteSegmentHandle rh = null;
        CmiToken token;
        try {
            if (direct != null) {
                seg = direct.segment();
                m = direct.mapping();
            } else {
                long bytes = (nwords * WORD + 8 + PAGE - 1) / PAGE * PAGE;
                seg = v.ctx.segGet(bytes, Set.of());
                m = v.ctx.segAt(seg, Set.of());
                m.put(0, buf.asSlice(0, nwords * WORD));
            }
            rh = v.ctx.segExp(seg, EnumSet.of(ExportAttr.WRITE_THROUGH));
            token = v.ctx.tokNew(seg, NodeAddress.ANY, access);
        } catch (CmiException | io.softcmi.cmi.CmiAccessException e) {
            undo(direct == null ? seg : null, direct == null ? m : null, rh);
            throw Vmmc.fromCmi(e, VmmcResult.BAD_RBUF_STATE, "export of rbufid " + rbufid);
        }
        DirectInlet inlet = access.contains(Access.WRITE) ? openInlet(m) : null;
        ExportHandle h = new ExportHandle(v, rbufid, buf, nwords, proc, EnumSet.copyOf(flags), seg, m, rh, token,
            direct != null, inlet);
        v.receiver.bySegment.put(seg.id(), h);
        byId.put(rbufid, h);
        v.directory.publish(v.myHostName(), v.session.pid(), rbufid,
            new Directory.Entry(nwords, flagNames(flags), rh.toBytes(), token.toBytes(), direct != null,
                inlet == null ? new byte[0] : inlet.address()));
        return h;
    }

    /** Gives back what a failed export had made (best effort: the export fails anyway). */
    private void undo(CmiSegment seg, CmiMapping m, RemoteSegmentHandle rh) {
        try {
            if (rh != null) {
                v.ctx.rsegDel(rh);
            }
            if (m != null) {
                v.ctx.segDt(m);
            }
            if (seg != null) {
                v.ctx.segRemove(seg);
            }
        } catch (RuntimeException x) {
            v.debug("failed export cleanup: " + x.getMessage());
        }
    }

    /** Whether exports serve senders from this process ({@code vmmc.directDelivery}, default true). */
    static boolean directDelivery() {
        return !"false".equals(System.getProperty("vmmc.directDelivery"));
    }

    /** @return an inlet for the buffer's segment, or null where direct delivery is off or not possible (TLS) */
    private DirectInlet openInlet(CmiMapping m) {
        if (!directDelivery()) {
            return null;
        }
        try {
            return Notifications.openInlet(m);
        } catch (CmiException | io.softcmi.cmi.CmiAccessException e) {
            v.debug("no direct delivery into this buffer, messages go through the home: " + e.getMessage());
            return null;
        }
    }

    private static boolean overlaps(MemorySegment a, MemorySegment b) {
        if (a.isNative() != b.isNative()) {
            return false;
        }
        if (!a.isNative() && a.heapBase().orElse(null) != b.heapBase().orElse(null)) {
            return false;
        }
        return a.address() < b.address() + b.byteSize() && b.address() < a.address() + a.byteSize();
    }

    private static String flagNames(Set<BufFlag> flags) {
        StringBuilder sb = new StringBuilder();
        for (BufFlag f : flags) {
            sb.append(sb.isEmpty() ? "" : ",").append(f.name());
        }
        return sb.toString();
    }

    /**
     * {@code vmmc_UnexportRecvBuf}'s first step, under the endpoint's lock: checks the handle,
     * then withdraws the buffer (later imports fail), closes its inlet and deletes its token (the
     * home and the inlet refuse later messages). The buffer still receives what was accepted
     * before; {@link #awaitAccepted} waits for that, {@link #drop} ends it.
     */
    void withdraw(ExportHandle h) {
        check(h);
        if (v.receiver.hasPendingFor(h)) {
            throw new VmmcException(VmmcResult.BLOCKED_NOTIFICATIONS, "rbufid " + h.rbufid);
        }
        h.unexported = true; // check() refuses the handle from now on
        v.directory.withdraw(v.myHostName(), v.session.pid(), h.rbufid);
        if (h.inlet != null) {
            h.inlet.close(); // later messages through it are refused (TOKEN), as the deleted token refuses them at the home
        }
        try {
            v.ctx.tokDel(h.token);
        } catch (CmiException e) {
            v.debug("unexport token: " + e.getMessage());
        }
    }

    /**
     * {@code vmmc_UnexportRecvBuf}'s second step, without the endpoint's lock (a handler may
     * export or unexport meanwhile, and the wait needs the thread that runs handlers): waits
     * until the messages the home accepted before the token went (their notices queued before
     * tokDel's reply) are in the buffer, at most {@link #FLUSH_TIMEOUT_NANOS}; not when called
     * from a handler.
     */
    void awaitAccepted(ExportHandle h) {
        boolean flushed;
        try {
            // First the inlet's stores admitted before it closed: their notices are handed to the
            // inbox before the wake notice below, which the inbox then delivers after them.
            long deadline = System.nanoTime() + FLUSH_TIMEOUT_NANOS;
            boolean landed = h.inlet == null || h.inlet.awaitClosed(FLUSH_TIMEOUT_NANOS);
            flushed = v.receiver.flush(v::wake, Math.max(0, deadline - System.nanoTime())) && landed;
        } catch (RuntimeException noWake) { // the context's connection is gone: nothing more arrives anyway
            flushed = false;
        }
        if (!flushed) {
            v.debug("unexport of rbufid " + h.rbufid + ": messages accepted before it may not all have been delivered");
        }
    }

    /** {@code vmmc_UnexportRecvBuf}'s last step, under the endpoint's lock: drops the buffer from delivery and frees its segment. */
    void drop(ExportHandle h) {
        h.live = false;
        byId.remove(h.rbufid);
        v.receiver.bySegment.remove(h.segment.id());
        try {
            v.ctx.rsegDel(h.remote);
            if (!h.direct) { // a direct buffer's segment is the caller's memory: it stays until close
                v.ctx.segDt(h.mapping);
                v.ctx.segRemove(h.segment);
            }
        } catch (CmiException e) {
            v.debug("unexport cleanup: " + e.getMessage());
        }
    }

    /** Throws BAD_ARG unless {@code h} is an export of this process, BAD_RBUF_STATE if it was unexported. */
    void check(ExportHandle h) {
        if (h == null || h.owner != v) {
            throw new VmmcException(VmmcResult.BAD_ARG, "not an export handle of this process");
        }
        if (!h.live || h.unexported) {
            throw new VmmcException(VmmcResult.BAD_RBUF_STATE, "rbufid " + h.rbufid + " is unexported");
        }
    }

    /** On close: every export stops receiving and leaves the session directory. */
    void withdrawAll() {
        for (ExportHandle e : List.copyOf(byId.values())) {
            try {
                v.receiver.bySegment.remove(e.segment.id());
                e.live = false;
                if (e.inlet != null) {
                    e.inlet.close();
                }
                v.directory.withdraw(v.myHostName(), v.session.pid(), e.rbufid);
            } catch (RuntimeException x) {
                v.debug("close: " + x);
            }
        }
    }
}
