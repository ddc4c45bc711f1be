package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.softcmi.cmi.internal.PollBudget;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The node tells a process which replies paid its session's wake-up
 * ({@link Frame#FLAG_NODE_WOKE}) and which it was slow to serve ({@link Frame#FLAG_NODE_SLOW}):
 * a request that finds the session parked gets a flagged reply; a
 * request that follows the previous reply at once finds the session polling (while traffic lasts)
 * and gets an unflagged one. The process's poll rule depends on it (docs/architecture.md 7.5).
 */
@Timeout(60)
class ControlServerWakeFlagTest {
    @Test
    void shouldFlagRepliesToRequestsThatFoundTheSessionParked() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        Path dir = Files.createTempDirectory("softcmi-wake-flag");
        try (NodeDaemon node = NodeDaemon.start(new NodeConfig().directory(dir.resolve("n")).name("wakeflag")
                .shmDirectory(dir.resolve("shm")));
                SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(node.config().directory().resolve("cmid.sock")));
            FrameIO.write(ch, MessageType.toFrame(new ControlMessage.Hello(Frame.VERSION, ProcessHandle.current().pid(),
                "wake-flag-test", 1), 1));
            assertEquals(MessageType.HELLO_REPLY.id(), FrameIO.read(ch).type());

            Thread.sleep(20); // far past the session's poll: it parks
            Frame woken = call(ch, 2);
            assertEquals(Frame.FLAG_NODE_WOKE, woken.flags() & Frame.FLAG_NODE_WOKE, "the session had parked");

            boolean polled = false;
            for (int i = 0; i < 200 && !polled; i++) { // right after the reply: the session polls (bounded tries: preemption)
                // While threads wait for a core the session polls only while its polls pay (PollingReader).
                assumeFalse(PollBudget.crowded(), "threads wait for a core on this machine now");
                polled = (call(ch, 3 + i).flags() & Frame.FLAG_NODE_WOKE) == 0;
            }
            assertTrue(polled, "a request right after the previous reply found the session parked every time");
        } finally {
            NodeDaemon.deleteTree(dir);
        }
    }

    @Test
    void shouldFlagRepliesTheNodeWasSlowToServe() {
        assertEquals(0, ControlServer.replyFlags(false, 10_000));
        assertEquals(Frame.FLAG_NODE_WOKE, ControlServer.replyFlags(true, 10_000));
        assertEquals(Frame.FLAG_NODE_SLOW, ControlServer.replyFlags(false, 200_000));
        assertEquals(Frame.FLAG_NODE_WOKE | Frame.FLAG_NODE_SLOW, ControlServer.replyFlags(true, 200_000));
    }

    private static Frame call(SocketChannel ch, long id) throws Exception {
        FrameIO.write(ch, MessageType.toFrame(new ControlMessage.CtlInfo(), id));
        Frame reply = FrameIO.read(ch);
        assertEquals(id, reply.correlationId());
        assertNotEquals(MessageType.ERROR.id(), reply.type());
        return reply;
    }
}
