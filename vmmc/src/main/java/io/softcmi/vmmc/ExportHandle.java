package io.softcmi.vmmc;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.notify.DirectInlet;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A handle to an exported receive buffer ({@code vmmc_exphandle_t}). Its backing CMI segment,
 * export and token belong to the exporting {@link Vmmc}; the redirection state is guarded by
 * this object's monitor.
 */
public final class ExportHandle {
    final Vmmc owner;
    final int rbufid;
    final MemorySegment buf;
    final long nwords;
    final VmmcCallback proc;
    final Set<BufFlag> flags;
    final CmiSegment segment;
    final CmiMapping mapping;
    final RemoteSegmentHandle remote;
    final CmiToken token;
    /**
     * The buffer is its segment's memory ({@link ReceiveMemory}): messages arrive in it with no
     * copy, and unexporting leaves the segment (the caller's memory) in place.
     */
    final boolean direct;
    /** Where senders store straight into this process (docs/vmmc.md, "Direct delivery"); null if it serves none. */
    final DirectInlet inlet;
    /** Delivery into the buffer goes on (until UnexportRecvBuf has waited for what was accepted, or close). */
    volatile boolean live = true;
    /** UnexportRecvBuf has begun: the handle is refused (BAD_RBUF_STATE), while delivery may still go on. */
    volatile boolean unexported;

    // Redirection (guarded by this): a posted window, and what the delivery thread redirected into it.
    MemorySegment redirBuf;
    long redirOffset;
    long redirWords;
    boolean redirPosted;
    /** A message has been redirected into the posted window (it alone may continue to fill it). */
    boolean redirDone;
    /** Counts PostRedir calls: which posting a message in the middle of its copy is filling. */
    long redirPosts;
    long redirFirst = -1;
    long redirCount;
    /** Last word index written by a message ({@code vmmc_DataEnd}), or NO_SUCH_ERROR's code. */
    volatile long dataEnd = VmmcResult.NO_SUCH_ERROR.code();

    ExportHandle(Vmmc owner, int rbufid, MemorySegment buf, long nwords, VmmcCallback proc, Set<BufFlag> flags,
            CmiSegment segment, CmiMapping mapping, RemoteSegmentHandle remote, CmiToken token, boolean direct,
            DirectInlet inlet) {
        this.owner = owner;
        this.rbufid = rbufid;
        this.buf = buf;
        this.nwords = nwords;
        this.proc = proc;
        this.flags = flags;
        this.segment = segment;
        this.mapping = mapping;
        this.remote = remote;
        this.token = token;
        this.direct = direct;
        this.inlet = inlet;
    }

    /** @return the receive buffer id given at export */
    public int rbufid() {
        return rbufid;
    }

    /** @return the size of the buffer in VMMC words */
    public long nwords() {
        return nwords;
    }

    /** @return the buffer's memory */
    public MemorySegment buffer() {
        return buf;
    }

    @Override
    public String toString() {
        return "ExportHandle[rbufid=" + rbufid + ", nwords=" + nwords + ", flags=" + flags + (direct ? ", direct" : "")
            + (live ? "" : ", unexported") + "]";
    }
}
