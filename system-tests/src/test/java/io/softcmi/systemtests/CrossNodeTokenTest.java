package io.softcmi.systemtests;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.SegInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertAccessError;
import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Access tokens across nodes (issue 3, "Access tokens"; cmi(7) "CMI Access Control", "Access
 * Errors and Exceptions"): each right and each error provoked and asserted: no token, not enabled,
 * a right not granted, range tokens, {@code BOUND} and {@code CMI_NADDR_ANY}, who may make, set
 * and revoke tokens, node-specific tokens on the wrong node, bytes that are not a token,
 * revocation taking effect on the next access, a wrong secret, a token of another segment.
 */
class CrossNodeTokenTest extends CrossNodeContextTestBase {
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

    // ---- no token, not enabled ----

    @Test
    void shouldFailWithTokenUntilTheImporterSetsAToken() {
        Shared s = share(2);
        onA.run(c -> s.local().putLong(PAGE, 31));
        Imported i = importAndAttach(onB, s.handle(), null);
        long id = i.proxy().id();
        onB.run(c -> {
            assertTrue(i.proxy().imported());
            assertEquals(2 * PAGE, i.proxy().size());
            assertEquals(2 * PAGE, i.mapping().size());
            assertAccessError(CmiAccessError.TOKEN, id, 8, () -> i.mapping().getLong(8));
            assertAccessError(CmiAccessError.TOKEN, id, PAGE, () -> i.mapping().putInt(PAGE, 1));
            assertAccessError(CmiAccessError.TOKEN, id, 16, () -> c.atmCas(i.mapping(), 16, 0, 1));
            assertAccessError(CmiAccessError.TOKEN, id, 0, () -> i.mapping().get(0, new byte[100], 0, 100));
        });
        setToken(onB, i, token(s, onB, RW));
        onB.run(c -> assertEquals(31, i.mapping().getLong(PAGE)));
    }

    @Test
    void shouldFailWithEnableOnThreadsThatHaveNotCalledCmiEnb() {
        Shared s = share(1);
        byte[] token = token(s, onB, ALL);
        Imported i = onB.call(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(s.handle()));
            c.segSetToken(p, CmiToken.fromBytes(token));
            return new Imported(p, c.segAt(p, Set.of()));
        });
        long id = i.proxy().id();
        onB.run(c -> {
            c.enable(false); // context threads start enabled
            assertAccessError(CmiAccessError.ENABLE, id, 0, () -> i.mapping().getLong(0));
            assertAccessError(CmiAccessError.ENABLE, id, 8, () -> i.mapping().putLong(8, 1));
            assertAccessError(CmiAccessError.ENABLE, id, 16, () -> c.atmCas(i.mapping(), 16, 0, 1));
            c.enable(true);
            i.mapping().putLong(8, 2);
            assertEquals(2, i.mapping().getLong(8));
            c.enable(false); // the load above left this thread a line hint: it must not serve the next one
            assertAccessError(CmiAccessError.ENABLE, id, 8, () -> i.mapping().getLong(8));
            c.enable(true);
            assertEquals(2, i.mapping().getLong(8));
            // Another thread of the same context is not enabled by this one's cmi_enb.
            ContextThread.runOnFreshThread(() -> {
                c.iniTh();
                try {
                    assertAccessError(CmiAccessError.ENABLE, id, 8, () -> i.mapping().getLong(8));
                    c.enable(true);
                    assertEquals(2, i.mapping().getLong(8));
                } finally {
                    c.fini();
                }
            });
            c.enable(false);
            assertAccessError(CmiAccessError.ENABLE, id, 8, () -> i.mapping().getLong(8));
        });
    }

    // ---- rights ----

    @Test
    void shouldRejectStoresAndAtmCasThroughAReadOnlyTokenWithPerm() {
        Shared s = share(1);
        onA.run(c -> s.local().putLong(40, 7));
        Imported i = importAndAttach(onB, s.handle(), token(s, onB, EnumSet.of(Access.READ)));
        long id = i.proxy().id();
        onB.run(c -> {
            assertEquals(7, i.mapping().getLong(40));
            assertAccessError(CmiAccessError.PERM, id, 40, () -> i.mapping().putLong(40, 8));
            assertAccessError(CmiAccessError.PERM, id, 64, () -> i.mapping().put(64, new byte[32], 0, 32));
            assertAccessError(CmiAccessError.PERM, id, 40, () -> c.atmCas(i.mapping(), 40, 7, 8));
        });
        onA.run(c -> assertEquals(7, s.local().getLong(40), "a refused store does not land"));
    }

    @Test
    void shouldRejectAtmCasWithoutTheAtomicRightWithPerm() {
        Shared s = share(1);
        byte[] rw = token(s, onB, RW);
        Imported i = importAndAttach(onB, s.handle(), rw);
        long id = i.proxy().id();
        onB.run(c -> {
            i.mapping().putLong(0, 5);
            assertEquals(5, i.mapping().getLong(0));
            assertAccessError(CmiAccessError.PERM, id, 0, () -> c.atmCas(i.mapping(), 0, 5, 6));
        });
        onA.run(c -> c.tokDel(CmiToken.fromBytes(rw)));
        setToken(onB, i, token(s, onB, ALL));
        onB.run(c -> {
            assertEquals(5, c.atmCas(i.mapping(), 0, 5, 6));
            assertEquals(6, c.atmCas(i.mapping(), 0, 5, 7), "a failed CAS returns the current value");
            assertEquals(6, i.mapping().getLong(0));
        });
    }

    @Test
    void shouldRejectLoadsThroughAWriteOnlyTokenWithPerm() {
        Shared s = share(1);
        Imported i = importAndAttach(onB, s.handle(), token(s, onB, EnumSet.of(Access.WRITE)));
        long id = i.proxy().id();
        onB.run(c -> {
            i.mapping().putLong(48, 1234);
            i.mapping().put(PAGE - 16, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 0, 16);
            assertAccessError(CmiAccessError.PERM, id, 48, () -> i.mapping().getLong(48));
            assertAccessError(CmiAccessError.PERM, id, 0, () -> i.mapping().get(0, new byte[64], 0, 64));
            assertAccessError(CmiAccessError.PERM, id, 48, () -> c.atmCas(i.mapping(), 48, 1234, 1));
        });
        onA.run(c -> {
            assertEquals(1234, s.local().getLong(48));
            assertEquals(16, s.local().getByte(PAGE - 1));
        });
    }

    @Test
    void shouldAllowOnlyAtmCasThroughAnAtomicOnlyToken() {
        Shared s = share(1);
        Imported i = importAndAttach(onB, s.handle(), token(s, onB, EnumSet.of(Access.ATOMIC)));
        long id = i.proxy().id();
        onB.run(c -> {
            assertEquals(0, c.atmCas(i.mapping(), 8, 0, 10));
            assertAccessError(CmiAccessError.PERM, id, 8, () -> i.mapping().getLong(8));
            assertAccessError(CmiAccessError.PERM, id, 8, () -> i.mapping().putLong(8, 11));
        });
        onA.run(c -> assertEquals(10, s.local().getLong(8)));
    }

    // ---- range tokens ----

    @Test
    void shouldConfineARangeTokenToItsRange() {
        Shared s = share(4);
        SegInfo info = onA.call(c -> c.segInfo(s.segment()));
        assertEquals(PAGE, info.segProtAlign());
        assertEquals(PAGE, info.segProtSz());
        byte[] nodeB = addressOf(onB);
        byte[] range = onA.call(c -> c.tokNewRange(s.segment(), PAGE, 2 * PAGE, NodeAddress.fromBytes(nodeB), RW).toBytes());
        Imported i = importAndAttach(onB, s.handle(), range);
        long id = i.proxy().id();
        onB.run(c -> {
            i.mapping().putLong(PAGE, 1);
            i.mapping().putLong(3 * PAGE - 8, 2);
            assertEquals(2, i.mapping().getLong(3 * PAGE - 8));
            byte[] whole = new byte[(int) (2 * PAGE)];
            i.mapping().get(PAGE, whole, 0, whole.length);
            assertEquals(1, whole[0]);
            assertAccessError(CmiAccessError.PERM, id, 0, () -> i.mapping().getLong(0));
            assertAccessError(CmiAccessError.PERM, id, PAGE - 8, () -> i.mapping().putLong(PAGE - 8, 3));
            assertAccessError(CmiAccessError.PERM, id, 3 * PAGE, () -> i.mapping().getLong(3 * PAGE));
            assertAccessError(CmiAccessError.PERM, id, 3 * PAGE - 4, () -> i.mapping().getLong(3 * PAGE - 4));
            assertAccessError(CmiAccessError.PERM, id, PAGE, () -> i.mapping().get(PAGE, new byte[(int) (2 * PAGE + 1)], 0,
                (int) (2 * PAGE + 1)));
            c.wmb(); // the import is cached: the stores reach the home at a release
        });
        onA.run(c -> {
            c.rmb();
            assertEquals(0, s.local().getLong(PAGE - 8));
            assertEquals(1, s.local().getLong(PAGE));
        });
    }

    @Test
    void shouldRejectRangeTokensThatAreNotAlignedOrNotInTheSegmentWithInval() {
        Shared s = share(4);
        byte[] nodeB = addressOf(onB);
        onA.run(c -> {
            NodeAddress b = NodeAddress.fromBytes(nodeB);
            assertCmiError(CmiError.INVAL, () -> c.tokNewRange(s.segment(), 100, PAGE, b, RW));
            assertCmiError(CmiError.INVAL, () -> c.tokNewRange(s.segment(), PAGE, 100, b, RW));
            assertCmiError(CmiError.INVAL, () -> c.tokNewRange(s.segment(), PAGE, PAGE + 8, b, RW));
            assertCmiError(CmiError.INVAL, () -> c.tokNewRange(s.segment(), 0, 0, b, RW));
            assertCmiError(CmiError.INVAL, () -> c.tokNewRange(s.segment(), -PAGE, PAGE, b, RW));
            assertCmiError(CmiError.INVAL, () -> c.tokNewRange(s.segment(), 3 * PAGE, 2 * PAGE, b, RW));
            assertCmiError(CmiError.INVAL, () -> c.tokNewRange(s.segment(), 4 * PAGE, PAGE, NodeAddress.ANY, RW));
            assertCmiError(CmiError.INVAL, () -> c.tokNew(s.segment(), b, Set.of()));
            // A valid one still works after all that.
            c.tokNewRange(s.segment(), 3 * PAGE, PAGE, b, RW);
        });
    }

    @Test
    void shouldRejectOverlappingRangeTokensForOneNodeWithBound() {
        Shared s = share(4);
        byte[] nodeB = addressOf(onB);
        byte[] nodeC = addressOf(onC);
        onA.run(c -> {
            NodeAddress b = NodeAddress.fromBytes(nodeB);
            c.tokNewRange(s.segment(), 0, 2 * PAGE, b, RW);
            assertCmiError(CmiError.BOUND, () -> c.tokNewRange(s.segment(), PAGE, 2 * PAGE, b, RW));
            assertCmiError(CmiError.BOUND, () -> c.tokNewRange(s.segment(), 0, PAGE, b, EnumSet.of(Access.READ)));
            assertCmiError(CmiError.BOUND, () -> c.tokNew(s.segment(), b, RW));
            c.tokNewRange(s.segment(), 2 * PAGE, PAGE, b, RW); // adjacent, not overlapping
            c.tokNewRange(s.segment(), PAGE, 2 * PAGE, NodeAddress.fromBytes(nodeC), RW); // another node
            c.tokNewRange(s.segment(), 0, 4 * PAGE, NodeAddress.ANY, RW);
        });
    }

    // ---- BOUND and ANY ----

    @Test
    void shouldRejectASecondTokenForTheSameNodeAndSegmentWithBound() {
        Shared s = share(1);
        Shared other = share(1);
        byte[] nodeB = addressOf(onB);
        byte[] nodeC = addressOf(onC);
        onA.run(c -> {
            NodeAddress b = NodeAddress.fromBytes(nodeB);
            CmiToken first = c.tokNew(s.segment(), b, RW);
            assertCmiError(CmiError.BOUND, () -> c.tokNew(s.segment(), b, EnumSet.of(Access.READ)));
            assertCmiError(CmiError.BOUND, () -> c.tokNewRange(s.segment(), 0, PAGE, b, RW));
            c.tokNew(s.segment(), NodeAddress.fromBytes(nodeC), RW);
            c.tokNew(other.segment(), b, RW);
            c.tokDel(first);
            c.tokNew(s.segment(), b, ALL);
        });
    }

    @Test
    void shouldNeverRefuseTokensForAnyNodeWithBound() {
        Shared s = share(2);
        byte[] nodeB = addressOf(onB);
        List<byte[]> tokens = onA.call(c -> {
            List<byte[]> made = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                made.add(c.tokNew(s.segment(), NodeAddress.ANY, RW).toBytes());
                made.add(c.tokNewRange(s.segment(), 0, PAGE, NodeAddress.ANY, EnumSet.of(Access.READ)).toBytes());
            }
            made.add(c.tokNew(s.segment(), NodeAddress.fromBytes(nodeB), RW).toBytes());
            return made;
        });
        for (int k = 0; k < tokens.size(); k++) {
            for (int j = k + 1; j < tokens.size(); j++) {
                assertFalse(Arrays.equals(tokens.get(k), tokens.get(j)), "every token is a different one");
            }
        }
        // An ANY token works from B and from C.
        Imported onBImport = importAndAttach(onB, s.handle(), tokens.get(0));
        Imported onCImport = importAndAttach(onC, s.handle(), tokens.get(2));
        onB.run(c -> {
            onBImport.mapping().putLong(PAGE, 9);
            c.wmb(); // cached imports: release here, acquire there
        });
        onC.run(c -> {
            c.rmb();
            assertEquals(9, onCImport.mapping().getLong(PAGE));
        });
    }

    // ---- who may do what ----

    @Test
    void shouldRefuseTokensAndExportsByProcessesThatDidNotCreateTheSegmentWithPerm() {
        Shared s = share(1);
        byte[] token = token(s, null, RW);
        byte[] nodeB = addressOf(onB);
        long id = s.segment().id();
        ContextThread otherOnA = open(nodeA());
        otherOnA.run(c -> {
            CmiSegment same = c.segFromId(id);
            assertCmiError(CmiError.PERM, () -> c.tokNew(same, NodeAddress.fromBytes(nodeB), RW));
            assertCmiError(CmiError.PERM, () -> c.tokNewRange(same, 0, PAGE, NodeAddress.ANY, RW));
            assertCmiError(CmiError.PERM, () -> c.segExp(same, Set.of()));
            assertCmiError(CmiError.PERM, () -> c.tokDel(CmiToken.fromBytes(token)));
        });
        // The token still works: the refused tok_del did nothing.
        Imported i = importAndAttach(onB, s.handle(), token);
        onB.run(c -> {
            i.mapping().putLong(0, 1);
            assertCmiError(CmiError.INVAL, () -> c.segExp(i.proxy(), Set.of()));
            assertCmiError(CmiError.INVAL, () -> c.segExp(i.proxy(), EnumSet.of(ExportAttr.WRITE_THROUGH)));
            assertCmiError(CmiError.INVAL, () -> c.tokNew(i.proxy(), NodeAddress.ANY, RW));
        });
    }

    @Test
    void shouldRefuseSegSetTokenByProcessesThatDidNotImportWithPerm() {
        Shared s = share(1);
        byte[] token = token(s, onB, RW);
        Imported i = importAndAttach(onB, s.handle(), token);
        onB.run(c -> {
            i.mapping().putLong(0, 17);
            c.wmb(); // the import is cached: the release writes the store back
        });
        long proxyId = i.proxy().id();
        ContextThread otherOnB = open(nodeB());
        otherOnB.run(c -> {
            CmiSegment proxy = c.segFromId(proxyId);
            assertTrue(proxy.imported());
            assertCmiError(CmiError.PERM, () -> c.segSetToken(proxy, CmiToken.fromBytes(token)));
            // It may still use the proxy, with the importer's token (node scope).
            CmiMapping m = c.segAt(proxy, Set.of());
            c.enable(true);
            assertEquals(17, m.getLong(0));
        });
        // CMI_SEG_TOKEN applies to imports only.
        onA.run(c -> assertCmiError(CmiError.INVAL, () -> c.segSetToken(s.segment(), CmiToken.fromBytes(token))));
    }

    @Test
    void shouldRefuseANodeSpecificTokenSetOnAnotherNodeWithPerm() {
        Shared s = share(1);
        byte[] forC = token(s, onC, RW);
        byte[] forA = token(s, onA, RW);
        CmiSegment proxy = importOnly(onB, s.handle());
        onB.run(c -> {
            assertCmiError(CmiError.PERM, () -> c.segSetToken(proxy, CmiToken.fromBytes(forC)));
            assertCmiError(CmiError.PERM, () -> c.segSetToken(proxy, CmiToken.fromBytes(forA)));
        });
        // On C the token made for C is fine.
        Imported i = importAndAttach(onC, s.handle(), forC);
        onC.run(c -> i.mapping().putLong(0, 1));
    }

    @Test
    void shouldRejectBytesThatAreNotAHandleATokenOrANodeAddressWithInval() {
        Shared s = share(1);
        byte[] token = token(s, null, RW);
        byte[] node = addressOf(onB);
        CmiSegment proxy = importOnly(onB, s.handle());
        onB.run(c -> {
            assertEquals(token.length, c.attrTokenSize(proxy), "CMI_ATTR_TOKEN_SIZE is the length of a token's bytes");
            assertEquals(s.handle().length, c.attrRsegSize(proxy), "CMI_ATTR_RSEG_SIZE is the length of a handle's bytes");
            for (byte[] garbage : garbageVariants(token)) {
                assertCmiError(CmiError.INVAL, () -> CmiToken.fromBytes(garbage));
            }
            for (byte[] garbage : garbageVariants(s.handle())) {
                assertCmiError(CmiError.INVAL, () -> RemoteSegmentHandle.fromBytes(garbage));
            }
            for (byte[] garbage : garbageVariants(node)) {
                assertCmiError(CmiError.INVAL, () -> NodeAddress.fromBytes(garbage));
            }
            assertCmiError(CmiError.INVAL, () -> CmiToken.fromBytes(null));
        });
    }

    /** Not-quite-right encodings of {@code valid}: empty, cut, extended, wrong magic and version, random. */
    private static List<byte[]> garbageVariants(byte[] valid) {
        List<byte[]> v = new ArrayList<>();
        v.add(new byte[0]);
        v.add(Arrays.copyOf(valid, valid.length - 1));
        v.add(Arrays.copyOf(valid, 5));
        v.add(Arrays.copyOf(valid, valid.length + 1));
        byte[] magic = valid.clone();
        magic[0] ^= 0x20;
        v.add(magic);
        byte[] version = valid.clone();
        version[4] = 9;
        v.add(version);
        java.util.Random r = new java.util.Random(valid.length);
        for (int k = 0; k < 20; k++) {
            byte[] random = new byte[valid.length];
            r.nextBytes(random);
            v.add(random);
        }
        return v;
    }

    @Test
    void shouldFailWithTokenOnTheNextAccessAfterTokDel() {
        Shared s = share(1);
        byte[] token = token(s, onB, RW);
        Imported i = importAndAttach(onB, s.handle(), token);
        long id = i.proxy().id();
        onB.run(c -> i.mapping().putLong(0, 3));
        onA.run(c -> c.tokDel(CmiToken.fromBytes(token)));
        onB.run(c -> {
            c.rmb(); // the import is cached: the revocation is met at the next acquire, miss or write-back
            assertAccessError(CmiAccessError.TOKEN, id, 0, () -> i.mapping().getLong(0));
            assertAccessError(CmiAccessError.TOKEN, id, 8, () -> i.mapping().putLong(8, 4));
            CmiMapping again = c.segAt(i.proxy(), Set.of());
            assertAccessError(CmiAccessError.TOKEN, id, 0, () -> again.getLong(0));
        });
        onA.run(c -> assertCmiError(CmiError.INVAL, () -> c.tokDel(CmiToken.fromBytes(token))));
    }

    @Test
    void shouldFailWithTokenWhenTheSecretIsWrong() {
        Shared s = share(1);
        byte[] token = token(s, onB, RW);
        byte[] forged = token.clone();
        forged[forged.length - 1] ^= 1; // the last bytes are the 128-bit secret
        Imported i = importAndAttach(onB, s.handle(), forged);
        onB.run(c -> assertAccessError(CmiAccessError.TOKEN, i.proxy().id(), 0, () -> i.mapping().getLong(0)));
        setToken(onB, i, token);
        onB.run(c -> assertEquals(0, i.mapping().getLong(0)));
    }

    @Test
    void shouldRejectATokenOfAnotherSegmentWithInval() {
        Shared s = share(1);
        Shared other = share(1);
        byte[] otherToken = token(other, onB, RW);
        CmiSegment proxy = importOnly(onB, s.handle());
        onB.run(c -> assertCmiError(CmiError.INVAL, () -> c.segSetToken(proxy, CmiToken.fromBytes(otherToken))));
    }
}
