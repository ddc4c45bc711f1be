package io.softcmi.node;

import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.TlsChannel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;

/**
 * The write side of one {@link DataConnection}: its replies, batched in one buffer and written
 * together ({@link #flush}). A small read's payload is copied into the buffer behind its reply
 * header; a large one is written straight from the segment's mapping after the buffer, in the
 * same gathering write. Loop thread only.
 */
final class ReplyOutput {
    /** Output buffer for reply headers and small read payloads. */
    static final int CAPACITY = 64 * 1024;
    /** Reads up to this size are copied into the output buffer; larger ones are written from the mapping. */
    static final int INLINE_READ = 8 * 1024;

    private final ByteBuffer out = ByteBuffer.allocateDirect(CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment outSegment = MemorySegment.ofBuffer(out);
    private final ByteBuffer[] parts = new ByteBuffer[2];
    private final ByteChannel io;
    private final GatheringByteChannel gather;
    /** The TLS layer the bytes go through, or null. */
    private final TlsChannel tls;
    /** A large read's payload still to be written after {@link #out}. */
    private ByteBuffer bulkOut;
    /** Status of the latest reply: an {@code OP_NOTIFY} with {@code FLAG_AFTER_OK} is dropped unless OK. */
    private byte lastStatus = DataProtocol.STATUS_OK;

    /**
     * @param io where the bytes go (the TLS layer or the socket)
     * @param gather the same, for gathering writes
     * @param tls the TLS layer, or null
     */
    ReplyOutput(ByteChannel io, GatheringByteChannel gather, TlsChannel tls) {
        this.io = io;
        this.gather = gather;
        this.tls = tls;
    }

    /** @return the buffer, for a request that writes its reply itself (ACQUIRE's ranges) */
    ByteBuffer buffer() {
        return out;
    }

    /** @return whether anything is waiting to be written */
    boolean pending() {
        return out.position() > 0 || bulkOut != null;
    }

    /** @return whether a large read's payload is waiting to be written */
    boolean bulkPending() {
        return bulkOut != null;
    }

    /** @return whether another request's reply, with an inline payload, fits */
    boolean hasRoom() {
        return bulkOut == null && out.remaining() >= DataProtocol.REPLY_HEADER + INLINE_READ;
    }

    /** @return whether the buffer is more than half full (write before reading more requests) */
    boolean halfFull() {
        return out.position() > CAPACITY / 2;
    }

    /** @return where the next reply starts */
    int position() {
        return out.position();
    }

    /** @return the status of the reply written at {@code at} if one was written there since, else OK */
    byte statusSince(int at) {
        return out.position() > at ? out.get(at + 4) : DataProtocol.STATUS_OK;
    }

    /** @return the status of the latest reply */
    byte lastStatus() {
        return lastStatus;
    }

    /** Appends a reply without payload. */
    void reply(byte status, long requestId, long value) {
        header(status, requestId, value, 0);
        out.position(out.position() + DataProtocol.REPLY_HEADER);
    }

    /** Appends an OK reply with the {@code length} bytes of {@code slice} copied behind it (at most {@link #INLINE_READ}). */
    void replyInline(long requestId, long value, MemorySegment slice, long length) {
        int at = out.position();
        WordCopy.fromMapping(slice, 0, outSegment, at + DataProtocol.REPLY_HEADER, length);
        header(DataProtocol.STATUS_OK, requestId, value, (int) length);
        out.position(at + DataProtocol.REPLY_HEADER + (int) length);
    }

    /** Appends an OK reply whose payload, all of {@code slice}, is written from the mapping after the buffer. */
    void replyBulk(long requestId, long value, MemorySegment slice) {
        header(DataProtocol.STATUS_OK, requestId, value, (int) slice.byteSize());
        out.position(out.position() + DataProtocol.REPLY_HEADER);
        bulkOut = slice.asByteBuffer();
    }

    /** Writes a reply header at the output's position without moving it. */
    private void header(byte status, long requestId, long value, int payload) {
        lastStatus = status;
        int at = out.position();
        out.putInt(at, DataProtocol.REPLY_HEADER - 4 + payload);
        out.put(at + 4, status).put(at + 5, (byte) 0).putShort(at + 6, (short) 0);
        out.putLong(at + 8, requestId).putLong(at + 16, value);
    }

    /**
     * Writes what is pending, as much as the socket takes.
     *
     * @return true when nothing is left to write
     * @throws IOException if the write fails
     */
    boolean flush() throws IOException {
        if (out.position() == 0 && bulkOut == null) {
            return tls == null || tls.flush();
        }
        out.flip();
        try {
            if (bulkOut == null) {
                io.write(out);
            } else {
                parts[0] = out;
                parts[1] = bulkOut;
                gather.write(parts);
                if (!bulkOut.hasRemaining()) {
                    bulkOut = null;
                }
                parts[1] = null;
            }
        } finally {
            out.compact();
        }
        return out.position() == 0 && bulkOut == null && (tls == null || tls.flush());
    }
}
