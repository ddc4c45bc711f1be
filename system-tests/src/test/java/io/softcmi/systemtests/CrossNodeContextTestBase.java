package io.softcmi.systemtests;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertAccessError;
import static io.softcmi.systemtests.CmiAssertions.assertCmiError;

/**
 * What the cross-node access-control suites ({@link CrossNodeTokenTest}, {@link CrossNodeImportTest})
 * share. Each subclass starts three daemons A, B and C on loopback with one cluster key, for all
 * its tests ({@link #startCluster}). The processes on them are contexts of this JVM, each on a
 * thread of its own and joined to its node ({@link ClusterNodes#openContext}): {@code onA}
 * creates and exports, {@code onB} and {@code onC} import; they are opened before and closed after
 * every test. Handles, tokens and node addresses cross from one context to another as bytes
 * only.
 *
 * <p>Errors are asserted with the code of the exception and {@code Cmi.lastError()} of the calling
 * thread ({@link CmiAssertions#assertCmiError}), access exceptions with {@code accessError()},
 * {@code segmentId()} and {@code offset()} ({@link CmiAssertions#assertAccessError}).
 */
@Timeout(60)
abstract class CrossNodeContextTestBase {
    static final long PAGE = 4096;
    static final Set<Access> RW = EnumSet.of(Access.READ, Access.WRITE);
    static final Set<Access> ALL = EnumSet.allOf(Access.class);

    private final List<ContextThread> opened = new ArrayList<>();
    /** A context on node A: creates and exports. */
    protected ContextThread onA;
    /** A context on node B: imports. */
    protected ContextThread onB;
    /** A context on node C: imports. */
    protected ContextThread onC;

    /**
     * Starts the subclass's cluster.
     *
     * @param resources the subclass's per-class resources
     * @return nodes A, B and C
     * @throws IOException if a daemon cannot be started
     */
    static List<NodeProcess> startCluster(SystemTestResources resources) throws IOException {
        return ClusterNodes.create(resources).start("A", "B", "C");
    }

    /** @return the subclass's nodes A, B and C */
    protected abstract List<NodeProcess> nodes();

    /** @return node A */
    protected final NodeProcess nodeA() {
        return nodes().get(0);
    }

    /** @return node B */
    protected final NodeProcess nodeB() {
        return nodes().get(1);
    }

    @BeforeEach
    final void openContexts() {
        onA = open(nodeA());
        onB = open(nodeB());
        onC = open(nodes().get(2));
    }

    @AfterEach
    final void closeContexts() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    /**
     * Opens another context, closed after the test.
     *
     * @param node where
     * @return the context thread
     */
    protected final ContextThread open(NodeProcess node) {
        ContextThread t = ClusterNodes.openContext(node, "ctx" + (opened.size() + 1) + "-" + node.directory().getFileName());
        opened.add(t);
        return t;
    }

    // ---- helpers: everything crosses between contexts as bytes ----

    /** A segment created, attached and exported by {@code onA}. */
    record Shared(CmiSegment segment, CmiMapping local, byte[] handle) {
    }

    /** An import: the proxy and, if attached, its mapping (of the importing context). */
    record Imported(CmiSegment proxy, CmiMapping mapping) {
    }

    protected final Shared share(long pages, Set<ExportAttr> attrs) {
        return onA.call(c -> {
            CmiSegment s = c.segGet(pages * PAGE, Set.of());
            CmiMapping m = c.segAt(s, Set.of());
            return new Shared(s, m, c.segExp(s, attrs).toBytes());
        });
    }

    protected final Shared share(long pages) {
        return share(pages, Set.of());
    }

    static byte[] addressOf(ContextThread t) {
        return t.call(c -> c.nodeAddress().toBytes());
    }

    /** A whole-segment token made by {@code onA} for the node of {@code forNode} (null: ANY). */
    protected final byte[] token(Shared s, ContextThread forNode, Set<Access> rights) {
        byte[] node = forNode == null ? null : addressOf(forNode);
        return onA.call(c -> c.tokNew(s.segment(), node == null ? NodeAddress.ANY : NodeAddress.fromBytes(node), rights)
            .toBytes());
    }

    /** Imports on {@code t}, sets {@code token} unless null, attaches and enables the thread. */
    static Imported importAndAttach(ContextThread t, byte[] handle, byte[] token) {
        return t.call(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(handle));
            if (token != null) {
                c.segSetToken(p, CmiToken.fromBytes(token));
            }
            CmiMapping m = c.segAt(p, Set.of());
            c.enable(true);
            return new Imported(p, m);
        });
    }

    static CmiSegment importOnly(ContextThread t, byte[] handle) {
        return t.call(c -> c.segImp(RemoteSegmentHandle.fromBytes(handle)));
    }

    static void setToken(ContextThread t, Imported i, byte[] token) {
        t.run(c -> c.segSetToken(i.proxy(), CmiToken.fromBytes(token)));
    }
}
