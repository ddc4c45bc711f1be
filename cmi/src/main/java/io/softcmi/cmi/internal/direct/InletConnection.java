package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.wire.DataProtocol;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;

/**
 * The reading side of one connection between two processes ({@link InletFrames}), on the
 * {@link InletServer}'s thread: reads the other process's frames in order, checks each against
 * the inlets it opened, writes the payload into the inlet's attach (a payload larger than the
 * input buffer straight from the socket; its last aligned word always last, after a store fence,
 * as the home does, for readers that poll the last word), queues the notifications for the server
 * to hand to the context's inbox once the input read is consumed, and passes the acknowledgements
 * of this process's own frames on the connection to its {@link RouteConnection}, the writing side.
 * Stored frames are acknowledged after the handlers ran (they usually answer, and the answer
 * carries the acknowledgement); refusals at once. While a handler on the server's thread waits
 * for another process, the server keeps reading, storing and acknowledging
 * ({@link InletServer#serveWhileWaiting}), and queues the notifications that come meanwhile, so
 * two processes whose handlers send to each other and wait never wait on each other
 * (DirectDeliveryTest).
 */
final class InletConnection {
    /** The other process broke the protocol: the connection is dropped. */
    static final class ProtocolException extends Exception {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) {
            super(message);
        }
    }

    /** The last word's bytes of the frame being read, collected apart (at most 8). */
    private final MemorySegment lastWord = MemorySegment.ofArray(new long[1]);
    private final InletServer server;
    private final SocketChannel channel;
    /** The server's key of this connection, once registered (the server's thread sets it). */
    volatile java.nio.channels.SelectionKey key;
    /** The writing side of this connection. */
    final RouteConnection route;
    /** Input, in write mode between calls. */
    private final ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
    private final Map<Integer, Inlet> opened = new HashMap<>();
    private NodeAddress sender = HandleCodec.ANY_NODE;
    private long seq;
    /** {@link #seq} as the writing side reads it (acknowledgements riding on this process's frames). */
    private volatile long storedSeq;
    /** Refusals sent so far (each queued on the writing side before this count grows). */
    private volatile long refusals;
    /** The inlet endpoint ({@code host:port}) of the process at the other end, from its HELLO, or null. */
    private volatile String peerEndpoint;
    /** Whether the other process's HELLO came (server thread). */
    private boolean helloed;
    /** When the server accepted this connection ({@code System.nanoTime()}), for the HELLO deadline; 0 if this process opened it. */
    long acceptedAt;
    // The frame being read.
    private boolean inFrame;
    private int op;
    private int inletId;
    private long offset;
    private long length;
    private long notifyOffset;
    private long value;
    private long done;
    private Inlet target;
    private int status;

    InletConnection(InletServer server, SocketChannel channel, RouteConnection route) {
        this.server = server;
        this.channel = channel;
        this.route = route;
    }

    SocketChannel channel() {
        return channel;
    }

    /**
     * Reads once (the server's poll loop reads the connection of the last traffic this way: one
     * {@code read} per look instead of a {@code select} and a {@code read}); the caller then
     * {@link #serveRead serves} what came, outside its poll.
     *
     * @return what {@code read} returned
     */
    int poll() throws IOException {
        return channel.read(in);
    }

    /** The connection is readable: reads and serves what came. */
    void serve() throws IOException, ProtocolException {
        serveRead(channel.read(in));
    }

    /** Serves the frames read ({@code n}: what the last {@code read} returned), then acknowledges them. */
    void serveRead(int n) throws IOException, ProtocolException {
        server.passBegin();
        try {
            in.flip();
            try {
                process();
            } finally {
                in.compact();
            }
        } finally {
            server.deliverQueued(); // the stores of this pass landed: their notifications go to the inbox
            server.passEnd();
        }
        route.acknowledgeInbound();
        if (n < 0) {
            throw new IOException("closed by the other process");
        }
    }

    /**
     * Serves the connection from inside a handler that waits for another process
     * ({@link InletServer#serveWhileWaiting}): reads what came, stores it, queues its
     * notifications (delivered once the handler returns), and acknowledges everything stored.
     */
    void serveNested() throws IOException, ProtocolException {
        serveRead(channel.read(in));
    }

    private void process() throws IOException, ProtocolException {
        while (true) {
            if (!inFrame) {
                if (in.remaining() < InletFrames.HEADER) {
                    return;
                }
                readHeader();
            }
            if (op == InletFrames.HELLO || op == InletFrames.OPEN) {
                if (in.remaining() < length) {
                    return;
                }
                if (op == InletFrames.HELLO) {
                    hello();
                } else {
                    open();
                }
                inFrame = false;
                continue;
            }
            if (op == InletFrames.ACK) {
                route.acknowledged(offset, (int) value);
                inFrame = false;
                continue;
            }
            if (done < length) {
                int take = (int) Math.min(length - done, in.remaining());
                if (take > 0) {
                    copyIn(take);
                }
                if (done < length && status == 0 && tailStart() > done) {
                    readStraight();
                }
                if (done < length) {
                    return;
                }
            }
            finish();
        }
    }

    private void readHeader() throws ProtocolException {
        op = in.getInt();
        inletId = in.getInt();
        offset = in.getLong();
        length = in.getLong();
        notifyOffset = in.getLong();
        value = in.getLong();
        long ackSeq = in.getLong();
        long ackRefusals = in.getLong();
        in.getLong();
        if (ackSeq > 0) {
            route.acknowledgedByRide(ackSeq, ackRefusals);
        }
        if (length < 0) {
            throw new ProtocolException("negative length " + length);
        }
        done = 0;
        inFrame = true;
        target = null;
        status = 0;
        switch (op) {
            case InletFrames.HELLO, InletFrames.OPEN -> {
                if (length > InletFrames.MAX_CONTROL || op == InletFrames.OPEN && length != InletAddress.KEY_LENGTH) {
                    throw new ProtocolException("op " + op + " of " + length + " bytes");
                }
            }
            case InletFrames.ACK -> {
                if (length != 0) {
                    throw new ProtocolException("ACK with " + length + " bytes");
                }
            }
            case InletFrames.PUT, InletFrames.PUT_NOTIFY -> status = check();
            default -> throw new ProtocolException("unknown op " + op);
        }
    }

    /** @return 0 if the frame may be stored, else its refusal's status */
    private int check() {
        Inlet i = opened.get(inletId);
        if (i == null || !i.serving()) {
            return InletFrames.status(CmiAccessError.TOKEN);
        }
        long size = i.data.byteSize();
        if (offset < 0 || length > size || offset > size - length
                || op == InletFrames.PUT_NOTIFY && (notifyOffset < 0 || notifyOffset > size - 8)) {
            return InletFrames.status(CmiAccessError.SINVAL);
        }
        target = i;
        return 0;
    }

    private void open() {
        byte[] key = new byte[InletAddress.KEY_LENGTH];
        in.get(key);
        Inlet i = server.inlet(inletId);
        if (i != null && MessageDigest.isEqual(i.key, key)) {
            opened.put(inletId, i);
        } else {
            opened.remove(inletId);
        }
    }

    private void hello() throws ProtocolException {
        int end = in.position() + (int) length;
        byte[] address = lengthPrefixed(end);
        byte[] endpoint = lengthPrefixed(end);
        if (!route.outgoing) {
            // The other process opened this connection: its HELLO ends with this server's key,
            // taken from an address of one of its inlets; without it the connection is dropped.
            byte[] proof = new byte[InletAddress.KEY_LENGTH];
            if (end - in.position() != proof.length) {
                throw new ProtocolException("HELLO without this inlet server's key");
            }
            in.get(proof);
            if (!server.isServerKey(proof)) {
                throw new ProtocolException("HELLO with another key than this inlet server's");
            }
        }
        if (in.position() != end) {
            throw new ProtocolException("HELLO payload of " + length + " bytes holds more");
        }
        helloed = true;
        try {
            sender = HandleCodec.nodeAddress(address);
        } catch (CmiException e) {
            // keep the last one known; the notification's sender is informational
        }
        String ep = new String(endpoint, java.nio.charset.StandardCharsets.UTF_8);
        if (!ep.isEmpty() && !ep.equals(peerEndpoint)) {
            peerEndpoint = ep;
            server.peerHello(ep, this);
        }
    }

    private byte[] lengthPrefixed(int end) throws ProtocolException {
        if (end - in.position() < 4) {
            throw new ProtocolException("truncated HELLO");
        }
        int n = in.getInt();
        if (n < 0 || n > end - in.position()) {
            throw new ProtocolException("HELLO field of " + n + " bytes");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    /** @return the other process's frames stored (or refused) so far (any thread: for acknowledgements riding on this process's frames) */
    long storedSeq() {
        return storedSeq;
    }

    /** @return the refusals sent so far, for frames up to {@link #storedSeq()} (any thread) */
    long refusals() {
        return refusals;
    }

    /** @return whether the other process said HELLO on this connection (server thread) */
    boolean helloed() {
        return helloed;
    }

    /** @return the endpoint of the inlet of the process at the other end, or null if unknown */
    String peerEndpoint() {
        return peerEndpoint;
    }

    /**
     * Where the frame's last word starts, relative to its payload: the aligned 8-byte word that
     * holds its last byte ({@link DataProtocol#bodyBeforeLastWord}), or 0 for a store within one
     * aligned word, which is then written whole, in one copy, once all of it is in.
     */
    private long tailStart() {
        long body = DataProtocol.bodyBeforeLastWord(offset, length);
        return body == length ? 0 : body;
    }

    /**
     * Takes {@code take} payload bytes from the input buffer: into the attach (the last word's
     * bytes collected apart and written after the rest, after a store fence), or dropped for a
     * refused frame.
     */
    private void copyIn(int take) {
        if (status == 0 && !target.open()) {
            status = InletFrames.status(CmiAccessError.TOKEN); // closed meanwhile: the rest does not land
        }
        if (status == 0) {
            try {
                MemorySegment src = MemorySegment.ofBuffer(in).asSlice(0, take);
                long tail = tailStart();
                long bodyPart = Math.max(0, Math.min(take, tail - done));
                MemorySegment.copy(src, 0, target.data, offset + done, bodyPart);
                if (bodyPart < take) {
                    MemorySegment.copy(src, bodyPart, lastWord, done + bodyPart - tail, take - bodyPart);
                }
                if (done + take == length) {
                    VarHandle.storeStoreFence();
                    MemorySegment.copy(lastWord, 0, target.data, offset + tail, length - tail);
                }
            } catch (IllegalStateException detached) {
                status = InletFrames.status(CmiAccessError.TOKEN); // the attach went away meanwhile
            }
        }
        in.position(in.position() + take);
        done += take;
    }

    /** The input buffer is empty: reads the rest of a large payload's body (not its last word) straight into the attach. */
    private void readStraight() throws IOException {
        if (!target.open()) {
            status = InletFrames.status(CmiAccessError.TOKEN); // closed meanwhile: the rest is read and dropped
            return;
        }
        try {
            ByteBuffer dst = target.data.asSlice(offset + done, tailStart() - done).asByteBuffer();
            int n;
            while (dst.hasRemaining() && (n = channel.read(dst)) > 0) {
                done += n;
            }
        } catch (IllegalStateException detached) {
            status = InletFrames.status(CmiAccessError.TOKEN);
        }
    }

    private void finish() {
        seq++;
        inFrame = false;
        if (status != 0) {
            route.refuse(seq, status); // queued first: a frame whose riding count includes it is written after it
            refusals++;
            storedSeq = seq;
            return;
        }
        storedSeq = seq;
        target.stored();
        server.dataFrameServed();
        if (op == InletFrames.PUT_NOTIFY) {
            server.queue(target, notifyOffset, value, sender);
        }
    }
}
