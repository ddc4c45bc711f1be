package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiInfo;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.Reservation;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.Ok;
import java.util.List;

/**
 * The {@code cmi_ctl} calls of one context about its node, after the context's thread check:
 * the node's figures ({@code CMI_CTL_INFO}), connectivity maps, memory reservations and the
 * comparison of node addresses.
 */
final class ControlCalls {
    private final NodeChannel channel;

    ControlCalls(NodeChannel channel) {
        this.channel = channel;
    }

    /** {@code cmi_ctl(CMI_CTL_INFO)}. */
    CmiInfo info() {
        long[] v = channel.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class).values();
        if (v.length < 16) {
            throw Errors.fail(CmiError.INVAL, "node sent " + v.length + " info fields");
        }
        // cache_line_sz: the line of cached imports when they are on (a multiple of the node's unit).
        long line = CachedImports.ENABLED ? Math.max(v[10], CachedImports.LINE_SIZE) : v[10];
        return new CmiInfo(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], line, v[11], v[12], v[13],
            v[14], v[15]);
    }

    /** {@code cmi_ctl(CMI_CTL_NODE_CMAP_GET)}. */
    void nodeCmapGet(long requestId) {
        if (requestId == 0) {
            throw Errors.fail(CmiError.INVAL, "request id 0 is reserved for unsolicited connectivity maps");
        }
        channel.call(new ControlMessage.CmapGet(requestId), Ok.class);
    }

    /** {@code cmi_ctl(CMI_CTL_MEM_RESERVE)}. */
    Reservation memReserve(long bytes) {
        Errors.checkNotNegative(bytes, "reservation size");
        ControlMessage.ReservationReply r = channel.call(new ControlMessage.MemReserve(bytes),
            ControlMessage.ReservationReply.class);
        return new Reservation(r.key(), r.reserved(), r.allocated());
    }

    /** {@code cmi_ctl(CMI_CTL_NODE_ADDR_CMP)}. */
    static int[] nodeAddrCmp(NodeAddress node, List<NodeAddress> candidates) {
        if (!(Errors.checkNotNull(node, "node address") instanceof NodeAddressImpl)) {
            throw Errors.fail(CmiError.INVAL, "not a node address of this library: " + node);
        }
        Errors.checkNotNull(candidates, "candidates");
        int[] matches = new int[candidates.size()];
        int n = 0;
        for (int i = 0; i < candidates.size(); i++) {
            NodeAddress c = candidates.get(i);
            if (!(c instanceof NodeAddressImpl)) {
                throw Errors.fail(CmiError.INVAL, "candidate " + i + " is not a node address: " + c);
            }
            if (c.equals(node)) {
                matches[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(matches, n);
    }
}
