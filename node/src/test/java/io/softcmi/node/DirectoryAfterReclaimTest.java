package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.SegmentFileLayout;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A coherent request that passed its check before the segment was reclaimed, served after the
 * reclaim dropped the segment's directory ({@link CoherenceDirectory#segmentGone}): it must not
 * leave a new directory behind for a segment that is gone (ids are never reused, so nothing
 * would ever remove it). The interleaving is forced: the reclaim runs between the check and the
 * request's use of the directory.
 */
class DirectoryAfterReclaimTest {
    private static final long SEGMENT = 300;
    private static final long TOKEN = 9;
    private static final long SIZE = 64 * 1024;
    private final Arena arena = Arena.ofShared();
    private final NodeState state = new NodeState(new NodeConfig(), new NodeAddressImpl(new byte[16], "", 0), null);
    private final HomeAccess access = new HomeAccess(state);
    private final CoherentAccess connection = new CoherentAccess(new DataHandshake.DataClient(new byte[16], 1), access,
        new DataPathStats());

    DirectoryAfterReclaimTest() {
        state.targets.put(SEGMENT, new RemoteTarget(SEGMENT, SIZE, false,
            arena.allocate(SegmentFileLayout.HEADER_SIZE + SIZE, 4096)));
        state.tokens.put(TOKEN, new HomeToken(TOKEN, SEGMENT, null, 0b111, 0, SIZE, 1, 2, 1));
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private ByteBuffer request(long a) {
        ByteBuffer b = ByteBuffer.allocateDirect(DataProtocol.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(16, SEGMENT).putLong(24, TOKEN).putLong(32, 1).putLong(40, 2).putLong(48, 0).putLong(56, a)
            .putLong(64, 0xCAFE);
        return b;
    }

    /** What SegmentService.reclaimIfUnused does for the data path, in its order. */
    private void reclaim() {
        state.targets.remove(SEGMENT);
        state.coherence.segmentGone(SEGMENT);
    }

    @Test
    void fillCheckedBeforeTheReclaim() {
        ByteBuffer in = request(4096);
        reclaim(); // after the FILL's check passed
        connection.filled(in, 0, SEGMENT, 0, 4096);
        assertEquals(0, state.coherence.sizes()[0], "a directory was left for a reclaimed segment");
    }
}
