package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node's TCP listener ({@code --listen HOST:PORT}). The first byte of a connection says
 * what it is: {@code 'P'} a peer daemon (authenticated with the cluster key, then import
 * requests), {@code 'D'} a process's remote data connection: authenticated here
 * ({@link DataHandshake}), then served by the {@link DataServer}'s I/O loops.
 */
final class RemoteServer implements AutoCloseable {
    /** First byte of a data connection. */
    static final byte DATA_PROTOCOL = 'D';
    /** Longest a connection may take to authenticate. */
    static final long AUTH_TIMEOUT_MS = 10_000;
    /** Largest peer frame: peer messages are small. */
    static final int MAX_PEER_FRAME = 64 * 1024;
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final ServerSocketChannel server;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private NodeState state;
    private NodeEngine engine;
    private DataServer data;

    RemoteServer(String host, int port) throws IOException {
        server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(host, port));
    }

    int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    void start(NodeEngine engine, NodeState state) throws IOException {
        this.engine = engine;
        this.state = state;
        int io = state.config.ioThreads() > 0 ? state.config.ioThreads() : DataServer.defaultIoThreads();
        this.data = new DataServer(state, io);
        Acceptor.start("cmid-remote", server, connections, this::route);
    }

    private void route(SocketChannel ch) {
        try {
            ByteBuffer kind = ByteBuffer.allocate(1);
            while (kind.hasRemaining()) {
                if (ch.read(kind) < 0) {
                    close(ch);
                    return;
                }
            }
            if (kind.get(0) == DATA_PROTOCOL) {
                // Authenticate on this (virtual) thread, blocking and with a deadline; only a
                // connection with a valid ticket is handed to the I/O loops.
                DataHandshake.DataClient client = DataHandshake.authenticate(ch, state, AUTH_TIMEOUT_MS, data.stats());
                if (client == null) {
                    close(ch);
                    return;
                }
                connections.remove(ch); // the I/O loop owns and closes it from now on
                LOG.log(Level.INFO, "data connection from node {0} at {1}", HexFormat.of().formatHex(client.node()),
                    ch.getRemoteAddress());
                data.adopt(ch, client);
                return;
            }
            if (kind.get(0) == PeerClient.PEER_PROTOCOL) {
                servePeer(ch);
            } else {
                LOG.log(Level.WARNING, "refused a connection from {0}: unknown protocol byte {1}",
                    ch.getRemoteAddress(), kind.get(0));
            }
        } catch (IOException | WireFormatException e) {
            LOG.log(Level.DEBUG, "remote connection ended: {0}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "remote connection failed: {0}", e.toString());
        }
        close(ch);
    }

    private void servePeer(SocketChannel ch) throws IOException {
        Thread reader = Thread.currentThread();
        Thread watchdog = Thread.ofVirtual().start(() -> closeIfSlow(ch, reader));
        ControlMessage.PeerHello hello;
        try {
            Frame f = FrameIO.read(ch, MAX_PEER_FRAME);
            if (f == null || !(MessageType.decode(f) instanceof ControlMessage.PeerHello h)) {
                return; // hung up (or spoke nonsense) before authenticating: nothing to log
            }
            hello = h;
            byte[] myId = state.address.nodeId();
            byte[] nonce = new byte[16];
            state.random.nextBytes(nonce);
            FrameIO.write(ch, MessageType.toFrame(new ControlMessage.PeerChallenge(myId, nonce,
                state.clusterKey.mac("peer-callee", hello.nonce(), myId, hello.nodeId())), f.correlationId()));
            Frame p = FrameIO.read(ch, MAX_PEER_FRAME);
            if (p == null || !(MessageType.decode(p) instanceof ControlMessage.PeerProof proof)
                    || !state.clusterKey.verify(proof.proof(), "peer-caller", nonce, hello.nodeId(), myId)) {
                LOG.log(Level.WARNING, "refused peer {0} at {1}: it did not prove the cluster key (or hung up after checking ours)",
                    HexFormat.of().formatHex(hello.nodeId()), ch.getRemoteAddress());
                return;
            }
        } finally {
            watchdog.interrupt(); // however the handshake ended, the deadline no longer applies
        }
        LOG.log(Level.INFO, "peer {0} at {1} connected (proved the cluster key)",
            HexFormat.of().formatHex(hello.nodeId()), ch.getRemoteAddress());
        while (true) {
            Frame req = FrameIO.read(ch, MAX_PEER_FRAME);
            if (req == null) {
                return;
            }
            ControlMessage request = MessageType.decode(req);
            // Heartbeats are answered here, without the engine's lock: they measure the daemon's liveness.
            ControlMessage reply = request instanceof ControlMessage.PeerPing ? new ControlMessage.Ok()
                : engine.handlePeer(request, hello.nodeId());
            FrameIO.write(ch, MessageType.toFrame(reply, req.correlationId()));
        }
    }

    /** Closes a peer connection that has not authenticated within {@link #AUTH_TIMEOUT_MS}. */
    private void closeIfSlow(SocketChannel ch, Thread reader) {
        try {
            Thread.sleep(AUTH_TIMEOUT_MS);
            LOG.log(Level.WARNING, "closing a peer connection that did not authenticate in time");
            close(ch);
        } catch (InterruptedException authenticated) {
            // The peer proved the key in time.
        }
    }

    private void close(SocketChannel ch) {
        connections.remove(ch);
        try {
            ch.close();
        } catch (IOException ignored) {
            // Gone already.
        }
    }

    /** @return the data path's counters (null before {@link #start}) */
    DataPathStats dataStats() {
        return data == null ? null : data.stats();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // Closed already.
        }
        for (SocketChannel ch : connections) {
            close(ch);
        }
        if (data != null) {
            data.close();
        }
    }
}
