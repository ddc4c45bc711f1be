package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.wire.ControlMessage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A control call with a timeout of its own ({@link NodeChannel#call(ControlMessage, Class, long)},
 * used for a data connection's ticket) ends with {@code INIT} when its timeout passes, before the
 * node's late reply, instead of waiting the control path's 60 s; the connection still serves the
 * next call.
 */
class NodeChannelTimeoutTest {
    @Test
    void shouldEndACallWhoseOwnTimeoutPassedBeforeTheReply() throws Exception {
        try (FakeNode node = new FakeNode(TimeUnit.SECONDS.toNanos(3), 0);
                NodeChannel ch = NodeChannel.connect(node.directory())) {
            CmiException late = assertThrows(CmiException.class,
                () -> ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class, TimeUnit.MILLISECONDS.toNanos(200)));
            assertEquals(CmiError.INIT, late.error());
            assertTrue(late.getMessage().contains("did not answer"), late.getMessage());
            assertEquals(0, node.requests(), "the call ended before the node answered it");
            node.answer(0, 0);
            assertEquals(ControlMessage.LongsValue.class,
                ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class).getClass(), "the next call is served");
        }
    }
}
