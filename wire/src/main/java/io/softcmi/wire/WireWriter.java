package io.softcmi.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends big-endian primitives, length-prefixed byte arrays and strings to a growable buffer.
 *
 * <p>Not thread-safe: one writer per message being encoded.
 */
public final class WireWriter {
    private byte[] buffer;
    private int position;

    /** Creates a writer with a small initial buffer. */
    public WireWriter() {
        this(64);
    }

    /**
     * Creates a writer.
     *
     * @param initialCapacity initial buffer size in bytes
     */
    public WireWriter(int initialCapacity) {
        buffer = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(int more) {
        if (position + more > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, position + more));
        }
    }

    /** @param v the byte to append @return this writer */
    public WireWriter putByte(int v) {
        ensure(1);
        buffer[position++] = (byte) v;
        return this;
    }

    /** @param v the boolean to append as one byte @return this writer */
    public WireWriter putBoolean(boolean v) {
        return putByte(v ? 1 : 0);
    }

    /** @param v the int to append, big-endian @return this writer */
    public WireWriter putInt(int v) {
        ensure(4);
        for (int shift = 24; shift >= 0; shift -= 8) {
            buffer[position++] = (byte) (v >>> shift);
        }
        return this;
    }

    /** @param v the long to append, big-endian @return this writer */
    public WireWriter putLong(long v) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buffer[position++] = (byte) (v >>> shift);
        }
        return this;
    }

    /** @param v bytes to append with an int length prefix @return this writer */
    public WireWriter putBytes(byte[] v) {
        putInt(v.length);
        ensure(v.length);
        System.arraycopy(v, 0, buffer, position, v.length);
        position += v.length;
        return this;
    }

    /** @param v bytes to append without a length prefix @return this writer */
    public WireWriter putRaw(byte[] v) {
        ensure(v.length);
        System.arraycopy(v, 0, buffer, position, v.length);
        position += v.length;
        return this;
    }

    /** @param v string to append as length-prefixed UTF-8 @return this writer */
    public WireWriter putString(String v) {
        return putBytes(v.getBytes(StandardCharsets.UTF_8));
    }

    /** @return number of bytes written so far */
    public int length() {
        return position;
    }

    /** @return a copy of the bytes written */
    public byte[] toByteArray() {
        return Arrays.copyOf(buffer, position);
    }
}
