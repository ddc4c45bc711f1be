package io.softcmi.node;

import io.softcmi.wire.DataProtocol;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;

/**
 * The input buffer of one {@link DataConnection}: requests are read into it from the socket and
 * served from it in place, a pass at a time ({@link #beginServing()}, {@link #endServing(boolean)}).
 * Between passes it holds the unserved input {@code [start, position)} in write mode. It decides
 * how much one read takes: as much as fits, or, in streaming mode ({@link #STREAM_PAYLOAD}), one
 * request header only. It grows once, for a DIFF larger than it. Loop thread only; one per
 * connection, allocated with it.
 */
final class RequestInput {
    /** Input buffer: many small requests, or the start of a bulk store. */
    static final int IN_CAPACITY = 64 * 1024;
    /** Input buffer after a DIFF larger than {@link #IN_CAPACITY}: one whole frame and the next one's start per read. */
    static final int DIFF_IN_CAPACITY = 2 * (DataProtocol.REQUEST_HEADER + DataProtocol.MAX_DIFF_PAYLOAD);
    /**
     * A store of at least this many bytes puts the input in streaming mode ({@link #streaming}):
     * its next read takes one request header only, so that a following large store's payload is
     * read straight into the mapping instead of into the buffer and copied from there (for 64 KiB
     * messages, every byte twice).
     */
    static final int STREAM_PAYLOAD = 16 * 1024;

    /** Where bytes are read from: the TLS layer or the socket. */
    private final ByteChannel io;
    /** Plain TCP (no TLS): only then is a read limited to one header ({@link #streaming}). */
    private final boolean plain;
    /** Grows once, to {@link #DIFF_IN_CAPACITY}, for large DIFFs. */
    private ByteBuffer in = ByteBuffer.allocateDirect(IN_CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
    /** A view of {@link #in}, indexed absolutely, for copies into a mapping. */
    private MemorySegment inSegment = MemorySegment.ofBuffer(in);
    /** A DIFF larger than the input buffer is waiting: grow it. */
    private boolean growIn;
    /** Where the unserved input starts in {@link #in} (it holds {@code [inStart, position)} between passes). */
    private int inStart;
    /**
     * The last request served was a store of at least {@link #STREAM_PAYLOAD} bytes (or the
     * notification right after one): read the next request's header alone (plain TCP only).
     */
    private boolean streaming;

    /**
     * @param io where requests are read from
     * @param plain whether {@code io} is the socket itself (no TLS)
     */
    RequestInput(ByteChannel io, boolean plain) {
        this.io = io;
        this.plain = plain;
    }

    /**
     * Reads requests into the buffer: as much as fits, or while {@link #streaming} and the buffer
     * holds no part of a request, one request header only (a large store's payload then goes
     * straight into the mapping, {@link DataConnection}'s {@code servePut}).
     *
     * @return bytes read, -1 at EOF
     */
    int read() throws IOException {
        if (!streaming || !plain || inStart != 0 || in.position() != 0) {
            return io.read(in);
        }
        in.limit(DataProtocol.REQUEST_HEADER);
        try {
            return io.read(in);
        } finally {
            in.limit(in.capacity());
        }
    }

    /**
     * Reads up to {@code bytes} (at most {@link #IN_CAPACITY}) of a refused store's payload and
     * drops them; the buffer holds nothing of a request then (a payload being dropped is all that
     * is left of the input).
     *
     * @return bytes read and dropped, -1 at EOF
     */
    int drop(long bytes) throws IOException {
        inStart = 0;
        in.clear().limit((int) Math.min(IN_CAPACITY, bytes));
        int n = io.read(in);
        in.clear();
        return n;
    }

    /**
     * Starts a pass over the unserved input.
     *
     * @return the buffer in read mode, its position at the first unserved request; valid until
     *         {@link #endServing}, which may replace it
     */
    ByteBuffer beginServing() {
        return in.flip().position(inStart);
    }

    /** @return the buffer's view as a segment, indexed like the buffer (valid until {@link #endServing}) */
    MemorySegment segment() {
        return inSegment;
    }

    /**
     * Notes a request about to be served, for the next read's size: a store of at least
     * {@link #STREAM_PAYLOAD} bytes starts streaming mode, a notification keeps it, anything else ends it.
     */
    void serving(byte op, int payload) {
        streaming = op == DataProtocol.OP_PUT ? payload >= STREAM_PAYLOAD : streaming && op == DataProtocol.OP_NOTIFY;
    }

    /**
     * A DIFF at {@code p} has not all come: the pass stops there and waits for the rest (a diff is
     * served from the buffer whole). Grows the buffer at {@link #endServing} if the frame is larger than it.
     *
     * @return whether its rest fits behind it, so that the pass should end keeping the input in
     *         place ({@code endServing(true)}): a large frame arrives in many reads, and compacting
     *         after each would copy it again each time
     */
    boolean awaitRest(int p, int payload) {
        growIn = in.capacity() < DataProtocol.REQUEST_HEADER + payload;
        return p + DataProtocol.REQUEST_HEADER + payload <= in.capacity();
    }

    /**
     * Ends a pass: what was not served (from the buffer's position) stays for the next, in place
     * when {@code keep} and otherwise moved to the buffer's start; then the buffer grows if a
     * DIFF asked for it ({@link #awaitRest}). Back in write mode.
     */
    void endServing(boolean keep) {
        if (keep) {
            inStart = in.position();
            in.position(in.limit()).limit(in.capacity());
        } else {
            in.compact();
            inStart = 0;
        }
        if (growIn) {
            growIn = false;
            ByteBuffer bigger = ByteBuffer.allocateDirect(DIFF_IN_CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
            // The view first, while the buffer's position is 0: a segment of a buffer starts at
            // its position, and every index into inSegment is absolute.
            MemorySegment biggerSegment = MemorySegment.ofBuffer(bigger);
            bigger.put(in.flip());
            in = bigger;
            inSegment = biggerSegment;
        }
    }
}
