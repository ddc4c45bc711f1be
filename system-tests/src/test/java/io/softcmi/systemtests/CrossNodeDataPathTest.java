package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.softcmi.cmi.ExportAttr;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The home's data path across request kinds on one connection: a large cached write-back (DIFF
 * frames bigger than the connection's first input buffer, which makes the home grow it) followed
 * by small write-through stores, whose payloads must still be read from the right place.
 */
class CrossNodeDataPathTest extends CrossNodeContextTestBase {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static List<NodeProcess> nodes;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        nodes = startCluster(RESOURCES);
    }

    @Override
    protected List<NodeProcess> nodes() {
        return nodes;
    }

    @Test
    void shouldStoreSmallPutsRightAfterALargeWriteBackOnTheSameConnection() {
        Shared cached = share(512); // 2 MiB, imported cached: its write-back goes as large DIFF frames
        Shared direct = share(1, Set.of(ExportAttr.WRITE_THROUGH)); // every store is a PUT
        Imported big = importAndAttach(onB, cached.handle(), token(cached, onB, RW));
        Imported small = importAndAttach(onB, direct.handle(), token(direct, onB, RW));
        for (int round = 1; round <= 3; round++) {
            long fill = 0x5a5a5a5a5a5a5a5aL + round;
            long marker = 1000 + round;
            onB.run(c -> {
                for (long off = 0; off < 512 * PAGE; off += 8) {
                    big.mapping().putLong(off, fill);
                }
                c.wmb(); // the whole dirty range goes back to A in DIFF frames
                small.mapping().putLong(0, marker);
                small.mapping().putLong(PAGE - 8, marker + 1);
            });
            onA.run(c -> {
                c.rmb();
                assertEquals(marker, direct.local().getLong(0), "a PUT after the large write-back");
                assertEquals(marker + 1, direct.local().getLong(PAGE - 8));
                assertEquals(fill, cached.local().getLong(0));
                assertEquals(fill, cached.local().getLong(512 * PAGE - 8));
            });
        }
    }
}
