package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.CmiError;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.MessageType;
import io.softcmi.wire.WireFormatException;
import org.junit.jupiter.api.Test;

/** How a context tells a node that does not know cache reports from other errors of one-way messages. */
class CachedImportsTest {
    /** What a node's control server answers to a frame it cannot decode (ControlServer). */
    private static ControlMessage.ErrorReply nodeAnswerTo(Frame frame) {
        try {
            MessageType.decode(frame);
            throw new AssertionError("decoded");
        } catch (WireFormatException e) {
            return new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(), "malformed request: " + e.getMessage());
        }
    }

    @Test
    void shouldStopReportingOnlyWhenTheNodeDoesNotKnowTheCacheReport() {
        ControlMessage.ErrorReply unknownReport = new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(),
            "malformed request: unknown message type " + MessageType.CACHE_REPORT.id());
        assertTrue(CachedImports.refusesCacheReports(unknownReport));
        assertFalse(CachedImports.refusesCacheReports(nodeAnswerTo(new Frame(200, 0, 0,
            new byte[0]))), "another unknown type (200)");
        assertFalse(CachedImports.refusesCacheReports(nodeAnswerTo(new Frame(MessageType.NOTIFY.id(), 0, 0, new byte[3]))),
            "a malformed notification");
        assertFalse(CachedImports.refusesCacheReports(new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(),
            "malformed request: unknown message type " + MessageType.CACHE_REPORT.id() + "0")), "type 290");
    }
}
