package io.softcmi.wire;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Reads and writes {@link Frame}s on blocking byte channels (the control path).
 *
 * <p>A reader checks the length, version and flags before allocating the payload; malformed
 * headers throw {@link WireFormatException} and the caller closes the connection.
 */
public final class FrameIO {
    private FrameIO() {
    }

    /**
     * Encodes a frame into one buffer ready to write.
     *
     * @param frame the frame
     * @return a flipped buffer holding header and payload
     */
    public static ByteBuffer encode(Frame frame) {
        int length = Frame.HEADER_AFTER_LENGTH + frame.payload().length;
        if (length > Frame.MAX_LENGTH) {
            throw new WireFormatException("frame of " + length + " bytes exceeds " + Frame.MAX_LENGTH);
        }
        ByteBuffer buf = ByteBuffer.allocate(4 + length);
        buf.putInt(length).put((byte) Frame.VERSION).put((byte) frame.type()).putShort((short) frame.flags())
            .putLong(frame.correlationId()).put(frame.payload()).flip();
        return buf;
    }

    /**
     * Encodes a frame into a buffer the caller reuses (a direct one: the channel then writes it
     * without copying it into a temporary direct buffer first), or into a new buffer if it does
     * not fit.
     *
     * @param frame the frame
     * @param reusable the buffer to encode into when the frame fits; its content is replaced
     * @return a flipped buffer holding header and payload: {@code reusable}, or a new one
     */
    public static ByteBuffer encode(Frame frame, ByteBuffer reusable) {
        int length = Frame.HEADER_AFTER_LENGTH + frame.payload().length;
        if (4 + length > reusable.capacity()) {
            return encode(frame);
        }
        reusable.clear();
        reusable.putInt(length).put((byte) Frame.VERSION).put((byte) frame.type()).putShort((short) frame.flags())
            .putLong(frame.correlationId()).put(frame.payload()).flip();
        return reusable;
    }

    /**
     * Writes a whole frame. Callers serialize writers on one channel.
     *
     * @param channel where to write
     * @param frame what to write
     * @throws IOException if the channel fails
     */
    public static void write(WritableByteChannel channel, Frame frame) throws IOException {
        ByteBuffer buf = encode(frame);
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
    }

    /**
     * Reads one whole frame, blocking.
     *
     * @param channel where to read
     * @return the frame, or {@code null} at a clean end of stream between frames
     * @throws IOException if the channel fails or ends inside a frame
     * @throws WireFormatException if the header is malformed
     */
    public static Frame read(ReadableByteChannel channel) throws IOException {
        return read(channel, Frame.MAX_LENGTH);
    }

    /**
     * Reads one whole frame, blocking, accepting at most {@code maxLength} bytes after the length
     * field (so a peer that has not authenticated cannot make the reader allocate much).
     *
     * @param channel where to read
     * @param maxLength the largest frame accepted
     * @return the frame, or {@code null} at a clean end of stream between frames
     * @throws IOException if the channel fails or ends inside a frame
     * @throws WireFormatException if the header is malformed or the frame too long
     */
    public static Frame read(ReadableByteChannel channel, int maxLength) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(4);
        if (!fill(channel, len, true)) {
            return null;
        }
        int length = len.flip().getInt();
        if (length < Frame.HEADER_AFTER_LENGTH || length > Math.min(maxLength, Frame.MAX_LENGTH)) {
            throw new WireFormatException("bad frame length " + length);
        }
        ByteBuffer body = ByteBuffer.allocate(length);
        fill(channel, body, false);
        body.flip();
        int version = body.get() & 0xff;
        if (version != Frame.VERSION) {
            throw new WireFormatException("unsupported protocol version " + version);
        }
        int type = body.get() & 0xff;
        int flags = body.getShort() & 0xffff;
        long correlationId = body.getLong();
        byte[] payload = new byte[body.remaining()];
        body.get(payload);
        return new Frame(type, flags, correlationId, payload);
    }

    private static boolean fill(ReadableByteChannel channel, ByteBuffer buf, boolean eofAllowedAtStart)
            throws IOException {
        while (buf.hasRemaining()) {
            int n = channel.read(buf);
            if (n < 0) {
                if (eofAllowedAtStart && buf.position() == 0) {
                    return false;
                }
                throw new EOFException("connection closed inside a frame");
            }
        }
        return true;
    }
}
