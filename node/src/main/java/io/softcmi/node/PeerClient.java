package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.PeerMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Calls another node's daemon: connects to its listen address, proves knowledge of the cluster
 * key and checks the other side does too (challenge/response, {@link ClusterKey}), sends one
 * request and returns the reply. Imports are rare, so a connection per call is enough.
 */
final class PeerClient {
    /** First byte of a peer connection. */
    static final byte PEER_PROTOCOL = 'P';
    /** First byte of a peer connection in TLS (nodes with {@code --tls-keystore}). */
    static final byte PEER_TLS = 'p';
    private static final int TIMEOUT_MS = 10_000;
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final NodeState state;

    PeerClient(NodeState state) {
        this.state = state;
    }

    ControlMessage call(NodeAddressImpl peer, ControlMessage request) {
        try (Link link = open(peer, TIMEOUT_MS)) {
            LOG.log(System.Logger.Level.DEBUG, "peer call to {0}: {1}", peer, request.getClass().getSimpleName());
            return link.call(request);
        } catch (IOException e) {
            // The caller decides what an unreachable home means (and logs it where it matters).
            LOG.log(System.Logger.Level.DEBUG, "home node {0} cannot be reached: {1}", peer, e.getMessage());
            throw NodeException.inval("home node " + peer + " cannot be reached: " + e.getMessage());
        }
    }

    /**
     * An authenticated connection to a peer daemon, for several requests in turn (the failure
     * detector's heartbeats). Every read has the link's timeout.
     */
    static final class Link implements AutoCloseable {
        private final SocketChannel channel;
        private final java.nio.channels.ReadableByteChannel in;
        private final java.nio.channels.WritableByteChannel out;
        private long nextCorrelation = 3;

        private Link(SocketChannel channel, java.nio.channels.ReadableByteChannel in,
                java.nio.channels.WritableByteChannel out) {
            this.channel = channel;
            this.in = in;
            this.out = out;
        }

        /**
         * Sends one request and reads its reply.
         *
         * @throws IOException if the peer hangs up or does not answer within the timeout
         */
        ControlMessage call(ControlMessage request) throws IOException {
            FrameIO.write(out, MessageType.toFrame(request, nextCorrelation++));
            return read(in);
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Gone already.
            }
        }
    }

    /**
     * Connects to a peer and proves the cluster key both ways.
     *
     * @param peer the peer daemon
     * @param timeoutMs connect timeout and the timeout of every read
     * @return the link
     * @throws IOException if the peer cannot be reached, does not answer in time, or fails to
     *         prove the key (or is another node)
     */
    Link open(NodeAddressImpl peer, int timeoutMs) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.socket().connect(new InetSocketAddress(peer.host(), peer.port()), timeoutMs);
            ch.socket().setSoTimeout(timeoutMs);
            ch.socket().setTcpNoDelay(true);
            ch.write(ByteBuffer.wrap(new byte[] {state.tls != null ? PEER_TLS : PEER_PROTOCOL}));
            byte[] myId = state.address.nodeId();
            byte[] nonce = new byte[16];
            state.random.nextBytes(nonce);
            // Reads through the socket's stream so that the timeout applies (channel reads ignore it).
            java.io.InputStream inStream = ch.socket().getInputStream();
            java.nio.channels.WritableByteChannel out = ch;
            if (state.tls != null) {
                javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) state.tls.socketFactory().createSocket(ch.socket(),
                    peer.host(), peer.port(), true);
                s.setUseClientMode(true);
                s.setEnabledProtocols(io.softcmi.wire.ClusterTls.protocols());
                s.setSoTimeout(timeoutMs);
                s.startHandshake();
                inStream = s.getInputStream();
                out = java.nio.channels.Channels.newChannel(s.getOutputStream());
            }
            java.nio.channels.ReadableByteChannel in = java.nio.channels.Channels.newChannel(inStream);
            FrameIO.write(out, MessageType.toFrame(new PeerMessage.PeerHello(myId, nonce), 1));
            if (!(read(in) instanceof PeerMessage.PeerChallenge c)
                    || !state.clusterKey.verify(c.proof(), "peer-callee", nonce, c.nodeId(), myId)
                    || !java.util.Arrays.equals(c.nodeId(), peer.nodeId())) {
                LOG.log(System.Logger.Level.WARNING, "refused node {0}: it did not prove the cluster key (or is another node)",
                    peer);
                throw new IOException("node " + peer + " failed to prove the cluster key (or is another node)");
            }
            FrameIO.write(out, MessageType.toFrame(new PeerMessage.PeerProof(
                state.clusterKey.mac("peer-caller", c.nonce(), myId, c.nodeId())), 2));
            return new Link(ch, in, out);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private static ControlMessage read(java.nio.channels.ReadableByteChannel ch) throws IOException {
        Frame f = FrameIO.read(ch, RemoteServer.MAX_PEER_FRAME);
        if (f == null) {
            throw new IOException("peer closed the connection (wrong cluster key?)");
        }
        return MessageType.decode(f);
    }
}
