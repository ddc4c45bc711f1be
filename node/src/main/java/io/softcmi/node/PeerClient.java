package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
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
    private static final int TIMEOUT_MS = 10_000;
    private final NodeState state;

    PeerClient(NodeState state) {
        this.state = state;
    }

    ControlMessage call(NodeAddressImpl peer, ControlMessage request) {
        try (SocketChannel ch = SocketChannel.open()) {
            ch.socket().connect(new InetSocketAddress(peer.host(), peer.port()), TIMEOUT_MS);
            ch.socket().setSoTimeout(TIMEOUT_MS);
            ch.write(ByteBuffer.wrap(new byte[] {PEER_PROTOCOL}));
            byte[] myId = state.address.nodeId();
            byte[] nonce = new byte[16];
            state.random.nextBytes(nonce);
            // Reads through the socket's stream so that the timeout applies (channel reads ignore it).
            java.nio.channels.ReadableByteChannel in = java.nio.channels.Channels.newChannel(ch.socket().getInputStream());
            FrameIO.write(ch, MessageType.toFrame(new ControlMessage.PeerHello(myId, nonce), 1));
            if (!(read(in) instanceof ControlMessage.PeerChallenge c)
                    || !state.clusterKey.verify(c.proof(), "peer-callee", nonce, c.nodeId(), myId)
                    || !java.util.Arrays.equals(c.nodeId(), peer.nodeId())) {
                throw NodeException.inval("node " + peer + " failed to prove the cluster key (or is another node)");
            }
            FrameIO.write(ch, MessageType.toFrame(new ControlMessage.PeerProof(
                state.clusterKey.mac("peer-caller", c.nonce(), myId, c.nodeId())), 2));
            FrameIO.write(ch, MessageType.toFrame(request, 3));
            return read(in);
        } catch (IOException e) {
            throw NodeException.inval("home node " + peer + " cannot be reached: " + e.getMessage());
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
