package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link EndedWriters}: ended contexts, a node declared dead, and the change count the connections watch. */
class EndedWritersTest {
    private static final byte[] NODE = {1, 2, 3, 4};
    private static final byte[] OTHER = {5, 6, 7, 8};

    @Test
    void shouldRefuseAContextThatEndedUntilItsTicketExpired() {
        EndedWriters ended = new EndedWriters();
        WritesInFlight.Writer w = WritesInFlight.Writer.of(NODE, 7);
        int before = ended.changes();
        ended.contextEnded(w, 1_000, 2_000);
        assertTrue(ended.ended(w));
        assertFalse(ended.ended(WritesInFlight.Writer.of(NODE, 8)), "another context of the node");
        assertNotEquals(before, ended.changes());
        ended.contextEnded(WritesInFlight.Writer.of(NODE, 9), 3_000, 4_000); // the first one's ticket expired
        assertFalse(ended.ended(w));
    }

    @Test
    void shouldEndEveryContextOfADeadNodeThatSaidHelloAndNoLaterOne() {
        EndedWriters ended = new EndedWriters();
        ended.helloFrom(WritesInFlight.Writer.of(NODE, 100));
        ended.helloFrom(WritesInFlight.Writer.of(NODE, 105));
        ended.helloFrom(WritesInFlight.Writer.of(OTHER, 500));
        int before = ended.changes();
        ended.nodeDeclaredDead(java.util.HexFormat.of().formatHex(NODE));
        assertNotEquals(before, ended.changes());
        assertTrue(ended.ended(WritesInFlight.Writer.of(NODE, 100)));
        assertTrue(ended.ended(WritesInFlight.Writer.of(NODE, 105)));
        assertTrue(ended.ended(WritesInFlight.Writer.of(NODE, 103)), "one that never said HELLO but is older");
        assertFalse(ended.ended(WritesInFlight.Writer.of(NODE, 106)), "a context made after the node came back");
        assertFalse(ended.ended(WritesInFlight.Writer.of(OTHER, 500)), "another node");
    }

    @Test
    void shouldChangeNothingWhenANodeThatNeverSaidHelloIsDeclaredDead() {
        EndedWriters ended = new EndedWriters();
        int before = ended.changes();
        ended.nodeDeclaredDead(java.util.HexFormat.of().formatHex(NODE));
        assertFalse(ended.ended(WritesInFlight.Writer.of(NODE, 1)));
        assertTrue(before == ended.changes());
    }

    @Test
    void shouldServeADeadNodesContextsAgainOnceItImportsAgain() {
        EndedWriters ended = new EndedWriters();
        WritesInFlight.Writer w = WritesInFlight.Writer.of(NODE, 100);
        ended.helloFrom(w);
        String hex = java.util.HexFormat.of().formatHex(NODE);
        ended.nodeDeclaredDead(hex);
        assertTrue(ended.ended(w));
        int before = ended.changes();
        ended.nodeImportsAgain(hex);
        assertFalse(ended.ended(w), "the node's daemon imports again: its contexts are served");
        assertNotEquals(before, ended.changes(), "connections look again");
    }
}
