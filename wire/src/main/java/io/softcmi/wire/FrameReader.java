package io.softcmi.wire;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads {@link Frame}s from a non-blocking channel, a piece at a time: whatever is available is
 * read into a buffer that grows to the largest frame seen, and complete frames are taken out of
 * it. The same header checks as {@link FrameIO#read}. Not thread-safe: its user serialises
 * readers (the control connection's read lock).
 */
public final class FrameReader {
    private static final int INITIAL = 16 * 1024;
    /**
     * Direct while frames fit in {@link #INITIAL}: a channel reads into it without a temporary
     * direct buffer and a copy (every empty poll of a polling reader paid for taking and
     * returning that temporary buffer); a larger frame moves it to the heap.
     */
    private ByteBuffer buf = ByteBuffer.allocateDirect(INITIAL);

    /**
     * Takes the next complete frame out of what was read so far.
     *
     * @return the frame, or null if none is complete yet
     * @throws WireFormatException if a header is malformed
     */
    public Frame next() {
        if (buf.position() < 4) {
            return null;
        }
        int length = buf.getInt(0);
        if (length < Frame.HEADER_AFTER_LENGTH || length > Frame.MAX_LENGTH) {
            throw new WireFormatException("bad frame length " + length);
        }
        if (buf.position() < 4 + length) {
            if (buf.capacity() < 4 + length) {
                ByteBuffer bigger = ByteBuffer.allocate(4 + length);
                buf.flip();
                bigger.put(buf);
                buf = bigger;
            }
            return null;
        }
        int version = buf.get(4) & 0xff;
        if (version != Frame.VERSION) {
            throw new WireFormatException("unsupported protocol version " + version);
        }
        int type = buf.get(5) & 0xff;
        int flags = buf.getShort(6) & 0xffff;
        long correlationId = buf.getLong(8);
        byte[] payload = new byte[length - Frame.HEADER_AFTER_LENGTH];
        buf.get(16, payload);
        int end = 4 + length;
        buf.flip().position(end);
        buf.compact();
        return new Frame(type, flags, correlationId, payload);
    }

    /**
     * Reads what the channel has now.
     *
     * @param channel a non-blocking channel
     * @return bytes read (0 if none were waiting)
     * @throws EOFException at end of stream
     * @throws IOException if the channel fails
     */
    public int fill(ReadableByteChannel channel) throws IOException {
        int n = channel.read(buf);
        if (n < 0) {
            throw new EOFException(buf.position() == 0 ? "node closed the connection" : "connection closed inside a frame");
        }
        return n;
    }
}
