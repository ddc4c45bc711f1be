package io.softcmi.node;

import io.softcmi.cmi.CmiError;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The node's control socket: a Unix-domain socket, owner-only, one virtual thread per
 * connected process. The first frame must be a Hello; the peer's user comes from the kernel
 * ({@code SO_PEERCRED}), never from the client. When a connection ends, however the process
 * ended, its session closes and the engine applies the lifetime rules.
 */
final class ControlServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final NodeEngine engine;
    private final ServerSocketChannel server;
    private final Path socketPath;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private final ControlPoller poller;

    ControlServer(NodeEngine engine, Path socketPath) throws IOException {
        this.engine = engine;
        this.socketPath = socketPath;
        Files.deleteIfExists(socketPath);
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socketPath));
        Files.setPosixFilePermissions(socketPath, PosixFilePermissions.fromString("rw-------"));
        this.poller = new ControlPoller();
        this.acceptor = Acceptor.start("cmid-control", server, connections, this::serve);
    }

    private void serve(SocketChannel ch) {
        Session session = null;
        try {
            // Non-blocking for good, so notices can be written without waiting (SessionWriter).
            ch.configureBlocking(false);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "control connection ended: {0}", e.getMessage());
            connections.remove(ch);
            closeQuietly(ch);
            return;
        }
        SessionWriter writer = new SessionWriter(ch, poller);
        // A process's requests come in bursts: poll briefly before parking (PollBudget rules, and
        // after every request while traffic lasts).
        io.softcmi.cmi.internal.PollingReader in = new io.softcmi.cmi.internal.PollingReader(ch,
            () -> poller.await(ch, java.nio.channels.SelectionKey.OP_READ));
        try {
            Frame first = FrameIO.read(in);
            if (first == null) {
                return;
            }
            if (!(MessageType.decode(first) instanceof ControlMessage.Hello hello)) {
                writer.reply(new ControlMessage.ErrorReply(CmiError.INIT.ordinal(), "first message must be Hello"),
                    first.correlationId());
                return;
            }
            if (hello.protocolVersion() != Frame.VERSION) {
                writer.reply(new ControlMessage.ErrorReply(CmiError.NOTSUPP.ordinal(),
                    "protocol version " + hello.protocolVersion() + " not supported"), first.correlationId());
                return;
            }
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            session = engine.openSession(hello, peer.user().getName(), writer);
            writer.reply(engine.helloReply(session), first.correlationId());
            while (true) {
                Frame frame = FrameIO.read(in);
                if (frame == null) {
                    break;
                }
                serveRequest(session, frame, in, writer);
            }
        } catch (IOException | WireFormatException e) {
            LOG.log(Level.DEBUG, "control connection ended: {0}", e.getMessage());
        } catch (NodeException e) {
            LOG.log(Level.INFO, "session refused: {0}", e.getMessage());
        } finally {
            if (session != null) {
                engine.closeSession(session);
            }
            connections.remove(ch);
            writer.close();
        }
    }

    /**
     * Serves one request of a session and writes its reply (none for the one-way messages). A
     * method of its own rather than the body of {@link #serve}'s loop, so that the JIT compiles
     * it after a few thousand requests: a session's loop lasts the session, and a loop body is
     * compiled with its method only by on-stack replacement, after tens of thousands of
     * back-edges (docs/architecture.md §7.5c).
     */
    private void serveRequest(Session session, Frame frame, io.softcmi.cmi.internal.PollingReader in, SessionWriter writer)
            throws IOException {
        long read = System.nanoTime();
        ControlMessage reply;
        try {
            ControlMessage request = MessageType.decode(frame);
            if (request instanceof ControlMessage.Notify n) {
                engine.notifyLocal(n); // one-way: no reply
                return;
            }
            if (request instanceof ControlMessage.CacheReport r) {
                engine.cacheReported(session, r); // one-way: the latest figures replace the last
                return;
            }
            if (request instanceof ControlMessage.Goodbye) {
                session.leftCleanly = true; // one-way: fini, not a death
                return;
            }
            reply = engine.handle(session, request);
        } catch (WireFormatException e) {
            reply = new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(), "malformed request: " + e.getMessage());
        }
        // Tells the process whether a poll for this reply could pay (NodeChannel's poll rule).
        writer.reply(reply, frame.correlationId(), replyFlags(in.lastReadWaited(), System.nanoTime() - read));
    }

    /**
     * The header flags of a reply, which tell the process whether a poll for it could have paid
     * ({@code docs/architecture.md} 7.5).
     *
     * @param waited whether the session parked for the request (it was not polling)
     * @param servedNanos from reading the request to writing its reply
     * @return {@link Frame#FLAG_NODE_WOKE} and {@link Frame#FLAG_NODE_SLOW} as they apply
     */
    static int replyFlags(boolean waited, long servedNanos) {
        return (waited ? Frame.FLAG_NODE_WOKE : 0)
            | (servedNanos > io.softcmi.cmi.internal.PollingReader.MAX_POLL_NANOS ? Frame.FLAG_NODE_SLOW : 0);
    }

    /** Stops accepting, closes every connection and removes the socket file. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // Already closed.
        }
        for (SocketChannel ch : connections) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // Already closed.
            }
        }
        try {
            Files.deleteIfExists(socketPath);
            acceptor.join(1000);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot remove {0}: {1}", socketPath, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            poller.close();
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }
}
