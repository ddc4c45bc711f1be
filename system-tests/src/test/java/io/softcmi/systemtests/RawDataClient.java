package io.softcmi.systemtests;

import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.internal.TicketProof;
import io.softcmi.cmi.internal.TokenImpl;
import io.softcmi.wire.DataProtocol;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * A hand-made client of a daemon's TCP port, speaking the remote data protocol
 * ({@link DataProtocol}) byte by byte, without the CMI library: what a buggy or hostile program
 * could send. Used to check that the home refuses forged tickets, borrowed tokens and malformed
 * frames, and keeps serving.
 *
 * <p>It can also mint node tickets the way a daemon does (layout in {@code ClusterKey}: node id,
 * session id, expiry, HMAC-SHA256 with the cluster key over {@code "ticket"} and the 32 bytes
 * before), given the key file: that stands for a process whose own daemon vouches for it, while
 * the test controls which node the ticket names.
 */
final class RawDataClient implements AutoCloseable {
    /** A reply: status (0 done, an access error code, 253..255 connection-level), request id, value, payload. */
    record Reply(int status, long requestId, long value, byte[] payload) {
    }

    private static final int READ_TIMEOUT_MS = 5_000;
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private long nextRequestId;

    private RawDataClient(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    /**
     * Connects to a daemon's port and sends the first byte of a connection.
     *
     * @param port the daemon's listen port on 127.0.0.1
     * @param protocol {@code 'D'} (data), {@code 'P'} (peer) or anything else
     * @return the client
     * @throws IOException if it cannot connect
     */
    static RawDataClient connect(int port, byte protocol) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
            s.setTcpNoDelay(true);
            s.setSoTimeout(READ_TIMEOUT_MS);
            RawDataClient c = new RawDataClient(s);
            c.out.write(protocol);
            return c;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Connects for data and sends a HELLO with {@code ticket}.
     *
     * @param port the daemon's port
     * @param ticket the node ticket
     * @param keyFile the cluster key file (for the proof of the session key)
     * @return the client, its session open
     * @throws IOException if the connection fails
     */
    static RawDataClient open(int port, byte[] ticket, Path keyFile) throws IOException {
        return open(port, ticket, keyFile, 0, 0);
    }

    /**
     * {@link #open(int, byte[], Path)} for a connection with a number that may supersede another
     * of the same context.
     *
     * @param number this connection's number (0: none)
     * @param supersedes the number of the connection it replaces (0: none)
     */
    static RawDataClient open(int port, byte[] ticket, Path keyFile, long number, long supersedes) throws IOException {
        RawDataClient c = connect(port, (byte) 'D');
        Reply r = c.helloWithProof(ticket, keyFile, number, supersedes);
        if (r == null || r.status != DataProtocol.STATUS_OK) {
            c.close();
            throw new AssertionError("the home refused a valid ticket: " + r);
        }
        return c;
    }

    /**
     * Opens a data session the way a process does: HELLO with the ticket, then the proof of the
     * ticket's session key (derived from the cluster key, as the issuing daemon does) for the
     * home's nonce.
     *
     * @param ticket the node ticket
     * @param keyFile the cluster key file the session key derives from
     * @return the reply to the proof (or to the HELLO, if that was not a challenge)
     * @throws IOException if the connection fails
     */
    Reply helloWithProof(byte[] ticket, Path keyFile) throws IOException {
        return helloWithProof(ticket, keyFile, 0, 0);
    }

    /**
     * {@link #helloWithProof(byte[], Path)} for a connection with a number that may supersede
     * another of the same context ({@link DataProtocol#OP_HELLO}).
     *
     * @param ticket the node ticket
     * @param keyFile the cluster key file the session key derives from
     * @param number this connection's number (0: none)
     * @param supersedes the number of the connection it replaces (0: none)
     * @return the reply to the proof, or null if the home closed the connection instead
     * @throws IOException if the connection fails
     */
    Reply helloWithProof(byte[] ticket, Path keyFile, long number, long supersedes) throws IOException {
        Reply challenge = request(DataProtocol.OP_HELLO, 0, 0, 0, 0, number, DataProtocol.VERSION, supersedes, ticket);
        if (challenge == null || challenge.status() != (DataProtocol.STATUS_CHALLENGE & 0xff)) {
            return challenge;
        }
        byte[] sessionKey = TicketProof.hmac(Files.readAllBytes(keyFile), "session-key", Arrays.copyOf(ticket, 32));
        return proof(TicketProof.proof(sessionKey, challenge.payload()));
    }

    /**
     * Sends an {@code OP_PROOF}.
     *
     * @param proof the proof bytes
     * @return the reply, or null if the home closed the connection instead
     * @throws IOException if the connection fails otherwise
     */
    Reply proof(byte[] proof) throws IOException {
        return request(DataProtocol.OP_PROOF, 0, 0, 0, 0, 0, 0, 0, proof);
    }

    /**
     * Sends a HELLO.
     *
     * @param ticket the ticket bytes
     * @return the reply, or null if the home closed the connection instead
     * @throws IOException if the connection fails otherwise
     */
    Reply hello(byte[] ticket) throws IOException {
        return hello(ticket, DataProtocol.VERSION);
    }

    /**
     * Sends a HELLO that claims a protocol version.
     *
     * @param ticket the ticket bytes
     * @param version the version claimed
     * @return the reply, or null if the home closed the connection instead
     * @throws IOException if the connection fails otherwise
     */
    Reply hello(byte[] ticket, long version) throws IOException {
        return request(DataProtocol.OP_HELLO, 0, 0, 0, 0, 0, version, 0, ticket);
    }

    /**
     * Sends a GET, PUT or CAS with a token.
     *
     * @param op operation
     * @param segmentId home segment id
     * @param token token bytes ({@link CmiToken#toBytes()})
     * @param offset offset
     * @param a length (GET, PUT) or compare value (CAS)
     * @param b swap value (CAS)
     * @param payload PUT data, or empty
     * @return the reply, or null if the home closed the connection instead
     * @throws IOException if the connection fails otherwise
     */
    Reply request(byte op, long segmentId, byte[] token, long offset, long a, long b, byte[] payload) throws IOException {
        TokenImpl t = (TokenImpl) CmiToken.fromBytes(token);
        return request(op, segmentId, t.tokenId(), t.secretHi(), t.secretLo(), offset, a, b, payload);
    }

    /**
     * Sends one request frame, every field as given, and reads the reply.
     *
     * @return the reply, or null if the home closed the connection instead
     * @throws IOException if the connection fails otherwise
     */
    Reply request(byte op, long segmentId, long tokenId, long secretHi, long secretLo, long offset, long a, long b,
            byte[] payload) throws IOException {
        return request(op, (byte) 0, segmentId, tokenId, secretHi, secretLo, offset, a, b, payload);
    }

    /** As {@link #request(byte, long, byte[], long, long, long, byte[])} with the request's flags byte set. */
    Reply request(byte op, byte flags, long segmentId, byte[] token, long offset, long a, long b, byte[] payload)
            throws IOException {
        TokenImpl t = (TokenImpl) CmiToken.fromBytes(token);
        return request(op, flags, segmentId, t.tokenId(), t.secretHi(), t.secretLo(), offset, a, b, payload);
    }

    private Reply request(byte op, byte flags, long segmentId, long tokenId, long secretHi, long secretLo, long offset,
            long a, long b, byte[] payload) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        long id = ++nextRequestId;
        DataProtocol.writeRequest(buf, op, id, segmentId, tokenId, secretHi, secretLo, offset, a, b, payload.length);
        buf.put(5, flags);
        buf.put(payload);
        if (!send(buf.array())) {
            return null;
        }
        Reply r = readReply();
        if (r != null && r.requestId != id && r.status != (DataProtocol.STATUS_MALFORMED & 0xff)) {
            throw new AssertionError("reply for request " + r.requestId + ", expected " + id);
        }
        return r;
    }

    /**
     * Writes raw bytes.
     *
     * @param bytes what to write
     * @return false if the home had closed the connection already
     * @throws IOException if the connection fails otherwise
     */
    boolean send(byte[] bytes) throws IOException {
        try {
            out.write(bytes);
            out.flush();
            return true;
        } catch (SocketException closed) {
            return false;
        }
    }

    /** Ends this side's output: the home sees the end of the stream. */
    void shutdownOutput() {
        try {
            socket.shutdownOutput();
        } catch (IOException ignored) {
            // Closed by the home already.
        }
    }

    /**
     * Reads one reply.
     *
     * @return the reply, or null at the end of the stream (the home closed the connection)
     * @throws IOException if the stream fails, or ends inside a reply, or the home does not
     *         answer in time ({@link SocketTimeoutException})
     */
    Reply readReply() throws IOException {
        byte[] header = new byte[DataProtocol.REPLY_HEADER];
        try {
            in.readFully(header, 0, 1);
        } catch (EOFException | SocketException end) {
            return null;
        }
        in.readFully(header, 1, header.length - 1);
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int payload = DataProtocol.replyPayload(h.getInt(0));
        byte[] data = new byte[payload];
        in.readFully(data);
        return new Reply(h.get(4) & 0xff, h.getLong(8), h.getLong(16), data);
    }

    /**
     * Reads everything until the home closes the connection or stays silent.
     *
     * @param silenceMillis how long a silence ends the wait
     * @return what was read
     * @throws IOException if the stream fails
     */
    byte[] drain(int silenceMillis) throws IOException {
        socket.setSoTimeout(silenceMillis);
        InputStream s = socket.getInputStream();
        byte[] buf = new byte[4096];
        byte[] all = new byte[0];
        try {
            int n;
            while ((n = s.read(buf)) > 0) {
                all = Arrays.copyOf(all, all.length + n);
                System.arraycopy(buf, 0, all, all.length - n, n);
            }
        } catch (SocketTimeoutException | SocketException quietOrReset) {
            // Silence or a reset: what came so far is the answer.
        }
        return all;
    }

    /** @return whether the home has closed the connection (reads the end of the stream, briefly) */
    boolean closedByHome() throws IOException {
        socket.setSoTimeout(2_000);
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    // ---- node tickets ----

    /**
     * Mints a node ticket as a daemon with {@code keyFile} would.
     *
     * @param keyFile the cluster key file
     * @param nodeId the node the ticket vouches for
     * @param sessionId any session id
     * @param expiresAtMillis expiry, epoch milliseconds
     * @return the ticket
     */
    static byte[] ticket(Path keyFile, byte[] nodeId, long sessionId, long expiresAtMillis) {
        try {
            return ticket(Files.readAllBytes(keyFile), nodeId, sessionId, expiresAtMillis);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + keyFile, e);
        }
    }

    /**
     * Mints a node ticket with the given key.
     *
     * @param key the key bytes
     * @param nodeId the node the ticket vouches for
     * @param sessionId any session id
     * @param expiresAtMillis expiry, epoch milliseconds
     * @return the ticket
     */
    static byte[] ticket(byte[] key, byte[] nodeId, long sessionId, long expiresAtMillis) {
        ByteBuffer b = ByteBuffer.allocate(64);
        b.put(nodeId).putLong(sessionId).putLong(expiresAtMillis);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update("ticket".getBytes(StandardCharsets.US_ASCII));
            mac.update(b.array(), 0, 32);
            b.put(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        return b.array();
    }

    /**
     * @param keyFile the cluster key file
     * @param nodeId a node
     * @return a ticket for that node, valid for an hour
     */
    static byte[] validTicket(Path keyFile, byte[] nodeId) {
        return ticket(keyFile, nodeId, 1, System.currentTimeMillis() + 3_600_000);
    }
}
