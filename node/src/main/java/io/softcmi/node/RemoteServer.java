package io.softcmi.node;

import io.softcmi.wire.ClusterTls;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.PeerMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import io.softcmi.wire.TlsChannel;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLSocket;

/**
 * The node's TCP listener ({@code --listen HOST:PORT}). The first byte of a connection says
 * what it is: {@code 'P'} a peer daemon (authenticated with the cluster key, then import
 * requests), {@code 'D'} a process's remote data connection: authenticated here
 * ({@link DataHandshake}), then served by the {@link DataServer}'s I/O loops. On a node with
 * TLS ({@code --tls-keystore}) the same connections start with {@code 'p'} and {@code 'd'} and
 * go on in TLS; such a node refuses the plain bytes, and a node without TLS the TLS ones.
 */
final class RemoteServer implements AutoCloseable {
    /** First byte of a data connection. */
    static final byte DATA_PROTOCOL = 'D';
    /** First byte of a data connection in TLS. */
    static final byte DATA_TLS = 'd';
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
            byte b = kind.get(0);
            boolean tlsByte = b == DATA_TLS || b == PeerClient.PEER_TLS;
            boolean known = tlsByte || b == DATA_PROTOCOL || b == PeerClient.PEER_PROTOCOL;
            if (known && tlsByte != (state.tls != null)) {
                LOG.log(Level.WARNING, "refused a {0} connection from {1}: this node {2}", tlsByte ? "TLS" : "plain",
                    ch.getRemoteAddress(), state.tls != null ? "requires TLS" : "does not use TLS (no --tls-keystore)");
                close(ch);
                return;
            }
            if (b == DATA_PROTOCOL || b == DATA_TLS) {
                // Authenticate on this (virtual) thread, blocking and with a deadline; only a
                // connection with a valid ticket is handed to the I/O loops.
                TlsChannel tls = b == DATA_TLS ? new TlsChannel(ch, state.tls.newEngine(false)) : null;
                DataHandshake.DataClient client = DataHandshake.authenticate(ch, tls, state, AUTH_TIMEOUT_MS, data.stats());
                if (client == null) {
                    close(ch);
                    return;
                }
                try {
                    LOG.log(Level.INFO, "data connection from node {0} at {1}{2}", HexFormat.of().formatHex(client.node()),
                        ch.getRemoteAddress(), tls != null ? " (TLS)" : "");
                } catch (IOException | RuntimeException e) {
                    client.member().leave(); // never served
                    throw e;
                }
                connections.remove(ch); // the I/O loop owns and closes it from now on
                data.adopt(ch, tls, client);
                return;
            }
            if (b == PeerClient.PEER_PROTOCOL || b == PeerClient.PEER_TLS) {
                servePeer(ch, b == PeerClient.PEER_TLS);
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

    private void servePeer(SocketChannel ch, boolean tls) throws IOException {
        Thread reader = Thread.currentThread();
        Thread watchdog = Thread.ofVirtual().start(() -> closeIfSlow(ch, reader));
        PeerMessage.PeerHello hello;
        ReadableByteChannel in = ch;
        WritableByteChannel out = ch;
        java.net.SocketAddress remote = ch.getRemoteAddress(); // still known once a failed handshake closed it
        try {
            if (tls) {
                SSLSocket s = (SSLSocket) state.tls.socketFactory().createSocket(ch.socket(), null, true);
                s.setUseClientMode(false);
                s.setEnabledProtocols(ClusterTls.protocols());
                try {
                    s.startHandshake();
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "refused peer at {0}: TLS handshake failed: {1}", remote, e.getMessage());
                    return;
                }
                in = Channels.newChannel(s.getInputStream());
                out = Channels.newChannel(s.getOutputStream());
            }
            Frame f = FrameIO.read(in, MAX_PEER_FRAME);
            if (f == null || !(MessageType.decode(f) instanceof PeerMessage.PeerHello h)) {
                return; // hung up (or spoke nonsense) before authenticating: nothing to log
            }
            hello = h;
            byte[] myId = state.address.nodeId();
            byte[] nonce = new byte[16];
            state.random.nextBytes(nonce);
            FrameIO.write(out, MessageType.toFrame(new PeerMessage.PeerChallenge(myId, nonce,
                state.clusterKey.mac("peer-callee", hello.nonce(), myId, hello.nodeId())), f.correlationId()));
            Frame p = FrameIO.read(in, MAX_PEER_FRAME);
            if (p == null || !(MessageType.decode(p) instanceof PeerMessage.PeerProof proof)
                    || !state.clusterKey.verify(proof.proof(), "peer-caller", nonce, hello.nodeId(), myId)) {
                LOG.log(Level.WARNING, "refused peer {0} at {1}: it did not prove the cluster key (or hung up after checking ours)",
                    HexFormat.of().formatHex(hello.nodeId()), ch.getRemoteAddress());
                return;
            }
        } finally {
            watchdog.interrupt(); // however the handshake ended, the deadline no longer applies
        }
        LOG.log(Level.INFO, "peer {0} at {1} connected (proved the cluster key{2})",
            HexFormat.of().formatHex(hello.nodeId()), ch.getRemoteAddress(), tls ? ", TLS" : "");
        while (true) {
            Frame req = FrameIO.read(in, MAX_PEER_FRAME);
            if (req == null) {
                return;
            }
            ControlMessage request = MessageType.decode(req);
            // Heartbeats are answered here, without the engine's lock: they measure the daemon's liveness.
            ControlMessage reply = request instanceof PeerMessage.PeerPing ? new ControlMessage.Ok()
                : engine.handlePeer(request, hello.nodeId());
            FrameIO.write(out, MessageType.toFrame(reply, req.correlationId()));
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
