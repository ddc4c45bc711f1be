package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two daemons on IPv6 loopback ({@code --listen [::1]:0}): the node address carries the IPv6
 * address in brackets, and a segment exported on one is imported, read, written and CAS'd from
 * the other. Skipped where the machine has no IPv6 loopback.
 */
@Timeout(180)
class Ipv6ClusterTest {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static boolean ipv6Loopback() {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void exportAndImportOverIpv6() throws Exception {
        assumeTrue(ipv6Loopback(), "skipped: no IPv6 loopback (::1) on this machine");
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        NodeProcess home = cluster.startWithOptions("V6A", "--listen", "[::1]:0");
        NodeProcess other = cluster.startWithOptions("V6B", "--listen", "[::1]:0");
        String ready = ClusterNodes.awaitLog(home, "(address ", Duration.ofSeconds(10));
        assertTrue(ready.contains("@[0:0:0:0:0:0:0:1]:"), ready);

        byte[][] shared = cluster.context(home).call(c -> {
            CmiSegment s = c.segGet(4096, Set.of());
            CmiMapping m = c.segAt(s, Set.of());
            m.putLong(0, 7);
            return new byte[][] {c.segExp(s, Set.of()).toBytes(),
                c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()};
        });
        long[] seen = cluster.context(other).call(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(shared[0]));
            c.segSetToken(p, CmiToken.fromBytes(shared[1]));
            c.enable(true);
            CmiMapping map = c.segAt(p, Set.of());
            long first = map.getLong(0);
            map.putLong(8, 42);
            long cas = c.atmCas(map, 0, 7, 8);
            return new long[] {first, cas, map.getLong(0), map.getLong(8)};
        });
        assertEquals(7, seen[0]);
        assertEquals(7, seen[1]);
        assertEquals(8, seen[2]);
        assertEquals(42, seen[3]);
    }
}
