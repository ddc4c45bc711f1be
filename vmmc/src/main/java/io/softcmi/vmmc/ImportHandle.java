package io.softcmi.vmmc;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.notify.DirectRoute;
import java.util.Set;

/**
 * A handle to an imported receive buffer ({@code vmmc_imphandle_t}): the CMI import
 * ({@code seg_imp} plus the exporter's token) and its region of DestSpace.
 */
public final class ImportHandle {
    final Vmmc owner;
    final ProcessId exporter;
    final int rbufid;
    final long proxyBuf;
    final long nwords;
    final Set<BufFlag> flags;
    final CmiSegment segment;
    final CmiMapping mapping;
    /** Messages land in the receiver's buffer itself: one without notification needs no notice to the receiver. */
    final boolean inPlace;
    /** The way straight to the exporting process (docs/vmmc.md, "Direct delivery"); null: messages go through the home. */
    final DirectRoute route;
    volatile boolean live = true;

    ImportHandle(Vmmc owner, ProcessId exporter, int rbufid, long proxyBuf, long nwords, Set<BufFlag> flags,
            CmiSegment segment, CmiMapping mapping, boolean inPlace, DirectRoute route) {
        this.owner = owner;
        this.exporter = exporter;
        this.rbufid = rbufid;
        this.proxyBuf = proxyBuf;
        this.nwords = nwords;
        this.flags = flags;
        this.segment = segment;
        this.mapping = mapping;
        this.inPlace = inPlace;
        this.route = route;
    }

    /** @return the DestSpace address of the buffer's first word ({@code proxyBuf} of {@code vmmc_ImportRecvBuf}) */
    public long proxyBuf() {
        return proxyBuf;
    }

    /** @return the buffer's size in VMMC words ({@code nwords} of {@code vmmc_ImportRecvBuf}) */
    public long nwords() {
        return nwords;
    }

    /** @return the exporting process */
    public ProcessId exporter() {
        return exporter;
    }

    /** @return the receive buffer id */
    public int rbufid() {
        return rbufid;
    }

    @Override
    public String toString() {
        return "ImportHandle[" + exporter + ", rbufid=" + rbufid + ", proxy=0x" + Long.toHexString(proxyBuf)
            + ", nwords=" + nwords + (live ? "" : ", unimported") + "]";
    }
}
