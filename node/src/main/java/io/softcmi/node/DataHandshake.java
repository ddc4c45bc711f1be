package io.softcmi.node;

import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.TlsChannel;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import io.softcmi.cmi.internal.TicketProof;

/**
 * The first requests of a data connection: a HELLO with the protocol version and the process's
 * node ticket, then, answering a nonce, the proof that the process holds the ticket's session
 * key ({@link TicketProof}). Read in blocking mode on the accepting virtual thread (an unauthenticated
 * connection costs no CPU and no I/O loop's time) and within a deadline; only a connection that
 * passes is handed to the {@link DataServer}.
 */
final class DataHandshake {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");

    private DataHandshake() {
    }

    /**
     * Reads and answers the HELLO.
     *
     * @param socket a blocking socket whose protocol byte was read
     * @param tls the TLS layer over it (the handshake runs first, within the deadline), or null
     * @param state the node
     * @param timeoutMs deadline for the whole handshake
     * @param stats where refusals are counted
     * @return the node and session the ticket proves, or null if the connection is to be closed
     */
    static DataClient authenticate(SocketChannel socket, TlsChannel tls, NodeState state, long timeoutMs, DataPathStats stats) {
        ByteChannel channel = tls != null ? tls : socket;
        long started = System.nanoTime();
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(timeoutMs);
                LOG.log(Level.WARNING, "closing a data connection that did not authenticate in time");
                socket.close();
            } catch (InterruptedException | IOException done) {
                // Authenticated (or failed) in time.
            }
        });
        ByteBuffer in = DataProtocol.newBuffer();
        try {
            socket.socket().setTcpNoDelay(true);
            if (tls != null) {
                try {
                    tls.handshake(null, System.nanoTime() + timeoutMs * 1_000_000);
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "refused a data connection from {0}: TLS handshake failed: {1}",
                        socket.socket().getRemoteSocketAddress(), e.getMessage());
                    stats.refusedHellos.increment();
                    return null;
                }
            }
            in.limit(DataProtocol.REQUEST_HEADER);
            if (!read(channel, in)) {
                return null;
            }
            int payload = DataProtocol.requestPayload(in.getInt(0));
            long requestId = in.getLong(8);
            if (in.get(4) != DataProtocol.OP_HELLO || payload > in.capacity() - DataProtocol.REQUEST_HEADER) {
                return null;
            }
            in.limit(DataProtocol.REQUEST_HEADER + payload);
            if (!read(channel, in)) {
                return null;
            }
            long version = in.getLong(56);
            long number = in.getLong(48);
            long supersedes = in.getLong(64);
            if (version != DataProtocol.VERSION) {
                LOG.log(Level.WARNING, "refused a data connection from {0}: it speaks data protocol version {1}, this node {2}",
                    socket.socket().getRemoteSocketAddress(), version, DataProtocol.VERSION);
                stats.refusedHellos.increment();
                reply(channel, DataProtocol.STATUS_VERSION, requestId, DataProtocol.VERSION);
                return null;
            }
            byte[] ticket = new byte[payload];
            in.get(DataProtocol.REQUEST_HEADER, ticket);
            byte[] clientNode = state.clusterKey.verifyTicket(ticket);
            if (clientNode == null) {
                LOG.log(Level.WARNING, "refused a data connection from {0}: its node ticket is not valid here",
                    socket.socket().getRemoteSocketAddress());
                stats.refusedHellos.increment();
                reply(channel, DataProtocol.STATUS_REFUSED, requestId, DataProtocol.VERSION);
                return null;
            }
            WritesInFlight.Writer writer = WritesInFlight.Writer.of(clientNode, java.nio.ByteBuffer.wrap(ticket).getLong(16));
            state.endedWriters.helloFrom(writer);
            if (state.endedWriters.ended(writer)) {
                LOG.log(Level.WARNING, "refused a data connection from {0}: its context has ended",
                    socket.socket().getRemoteSocketAddress());
                stats.refusedHellos.increment();
                reply(channel, DataProtocol.STATUS_REFUSED, requestId, DataProtocol.VERSION);
                return null;
            }
            // Bound to the session: the process must prove the key its daemon gave it with the ticket.
            byte[] nonce = new byte[DataProtocol.NONCE_LENGTH];
            state.random.nextBytes(nonce);
            reply(channel, DataProtocol.STATUS_CHALLENGE, requestId, 0, nonce);
            in.clear().limit(DataProtocol.REQUEST_HEADER);
            if (!read(channel, in)) {
                return null;
            }
            payload = DataProtocol.requestPayload(in.getInt(0));
            requestId = in.getLong(8);
            if (in.get(4) != DataProtocol.OP_PROOF || payload != DataProtocol.PROOF_LENGTH) {
                return null;
            }
            in.limit(DataProtocol.REQUEST_HEADER + payload);
            if (!read(channel, in)) {
                return null;
            }
            byte[] proof = new byte[payload];
            in.get(DataProtocol.REQUEST_HEADER, proof);
            if (!TicketProof.verify(state.clusterKey.sessionKey(ticket), nonce, proof)) {
                LOG.log(Level.WARNING, "refused a data connection from {0}: it holds a valid ticket but not its session key",
                    socket.socket().getRemoteSocketAddress());
                stats.refusedHellos.increment();
                reply(channel, DataProtocol.STATUS_REFUSED, requestId, DataProtocol.VERSION);
                return null;
            }
            // The connection this one replaces serves nothing more, before this one is answered.
            long deadline = started + timeoutMs * 1_000_000;
            if (supersedes != 0 && !state.lineage.supersede(writer, supersedes, deadline, stats)) {
                LOG.log(Level.WARNING, "closing a data connection from {0}: the connection it replaces did not stop in time",
                    socket.socket().getRemoteSocketAddress());
                return null;
            }
            ConnectionLineage.Member member = state.lineage.enter(writer, number);
            if (member == null) {
                LOG.log(Level.WARNING, "refused a data connection from {0}: its context has an open connection numbered {1}",
                    socket.socket().getRemoteSocketAddress(), number);
                stats.refusedHellos.increment();
                return null;
            }
            try {
                reply(channel, DataProtocol.STATUS_OK, requestId, DataProtocol.VERSION);
            } catch (IOException | RuntimeException e) {
                member.leave();
                throw e;
            }
            return new DataClient(clientNode, writer.session(), member);
        } catch (IOException | WireFormatException e) {
            return null;
        } finally {
            watchdog.interrupt();
        }
    }

    /**
     * Who a data connection speaks for, as its ticket proves.
     *
     * @param node the process's node id
     * @param session the process's session (context) id at that node
     * @param member the connection's place among its context's connections ({@link ConnectionLineage})
     */
    record DataClient(byte[] node, long session, ConnectionLineage.Member member) {
        /** A client whose connection has no number: nothing supersedes it. */
        DataClient(byte[] node, long session) {
            this(node, session, ConnectionLineage.Member.unnumbered());
        }
    }

    private static boolean read(ByteChannel channel, ByteBuffer in) throws IOException {
        while (in.hasRemaining()) {
            if (channel.read(in) < 0) {
                return false;
            }
        }
        return true;
    }

    private static void reply(ByteChannel channel, byte status, long requestId, long value) throws IOException {
        reply(channel, status, requestId, value, new byte[0]);
    }

    private static void reply(ByteChannel channel, byte status, long requestId, long value, byte[] payload)
            throws IOException {
        ByteBuffer out = DataProtocol.newBuffer();
        DataProtocol.writeReply(out, status, requestId, value, payload.length);
        out.put(payload);
        out.flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
    }
}
