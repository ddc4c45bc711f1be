package io.softcmi.node;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;

/**
 * The store a {@link DataConnection} is receiving whose payload did not all come with its header:
 * the rest is read from the socket straight into the segment's mapping, and its last
 * {@link DataConnection#LAST_WORD} bytes are collected apart and written after the rest (the
 * kernel's copy into the mapping may make its stores visible to other cores in any order, x86
 * fast-string stores; a plain store after it is seen after all of them), so that a reader
 * polling the last word of a message sees the whole message. One per connection, reused.
 */
final class StoreInFlight {
    private final ByteBuffer lastWord = ByteBuffer.allocateDirect(DataConnection.LAST_WORD);
    private final MemorySegment lastWordSegment = MemorySegment.ofBuffer(lastWord);
    /** The payload still to be read into the mapping (all but its last word); null when no store is in flight. */
    private ByteBuffer body;
    /** Where {@link #lastWord} goes (empty for a store of at most one word). */
    private MemorySegment lastWordTarget;
    private long request;
    private long segment;
    private long offset;
    private long length;

    /** @return whether a store is being received */
    boolean active() {
        return body != null;
    }

    /**
     * Starts receiving a store.
     *
     * @param target the store's whole range in the mapping
     * @param in the connection's input, holding the payload's first {@code here} bytes from {@code start}
     *        (already copied into {@code target}, except those of the last word)
     * @param bodyLength the payload's bytes before its last word
     */
    void start(MemorySegment target, ByteBuffer in, int start, int here, int bodyLength, long requestId, long segmentId,
            long storeOffset) {
        long payload = target.byteSize();
        lastWord.clear().limit((int) (payload - bodyLength));
        for (int k = bodyLength; k < here; k++) { // the last word's bytes that came with the header
            lastWord.put(in.get(start + k));
        }
        lastWordTarget = target.asSlice(bodyLength, payload - bodyLength);
        int done = Math.min(here, bodyLength);
        body = target.asSlice(done, bodyLength - done).asByteBuffer();
        request = requestId;
        segment = segmentId;
        offset = storeOffset;
        length = payload;
    }

    /**
     * Reads what the socket has of the store.
     *
     * @return -1 at end of stream, 1 when the store is complete (its last word written), else 0
     */
    int read(ByteChannel io) throws IOException {
        if (body.hasRemaining() && io.read(body) < 0) {
            return -1;
        }
        if (!body.hasRemaining() && lastWord.hasRemaining() && io.read(lastWord) < 0) {
            return -1;
        }
        if (body.hasRemaining() || lastWord.hasRemaining()) {
            return 0;
        }
        VarHandle.storeStoreFence();
        MemorySegment.copy(lastWordSegment, 0, lastWordTarget, 0, lastWordTarget.byteSize());
        body = null;
        return 1;
    }

    /** @return the completed store's request id */
    long request() {
        return request;
    }

    /** @return the completed store's segment */
    long segment() {
        return segment;
    }

    /** @return the completed store's offset */
    long offset() {
        return offset;
    }

    /** @return the completed store's length */
    long length() {
        return length;
    }
}
