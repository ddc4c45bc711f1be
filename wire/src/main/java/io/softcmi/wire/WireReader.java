package io.softcmi.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads what {@link WireWriter} wrote, checking every field against the bytes that remain.
 *
 * <p>Any read past the end, negative length or over-long array throws {@link WireFormatException};
 * nothing is allocated before its length has been checked against the input.
 */
public final class WireReader {
    private final byte[] data;
    private final int limit;
    private int position;

    /**
     * Reads all of {@code data}.
     *
     * @param data the input; not copied
     */
    public WireReader(byte[] data) {
        this(data, 0, data.length);
    }

    /**
     * Reads {@code data[offset, offset+length)}.
     *
     * @param data the input; not copied
     * @param offset first byte
     * @param length number of bytes
     */
    public WireReader(byte[] data, int offset, int length) {
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new WireFormatException("bad slice " + offset + "+" + length + " of " + data.length);
        }
        this.data = data;
        this.position = offset;
        this.limit = offset + length;
    }

    private void need(int n) {
        if (n < 0 || limit - position < n) {
            throw new WireFormatException("truncated input: need " + n + " bytes, have " + (limit - position));
        }
    }

    /** @return the next byte, unsigned */
    public int getByte() {
        need(1);
        return data[position++] & 0xff;
    }

    /** @return the next byte as a boolean; anything but 0 or 1 is malformed */
    public boolean getBoolean() {
        int b = getByte();
        if (b > 1) {
            throw new WireFormatException("bad boolean " + b);
        }
        return b == 1;
    }

    /** @return the next big-endian int */
    public int getInt() {
        need(4);
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v = (v << 8) | (data[position++] & 0xff);
        }
        return v;
    }

    /** @return the next big-endian long */
    public long getLong() {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (data[position++] & 0xff);
        }
        return v;
    }

    /**
     * Reads a length-prefixed byte array.
     *
     * @param maxLength the largest length accepted
     * @return the bytes
     */
    public byte[] getBytes(int maxLength) {
        int n = getInt();
        if (n < 0 || n > maxLength) {
            throw new WireFormatException("length " + n + " outside [0, " + maxLength + "]");
        }
        need(n);
        byte[] v = Arrays.copyOfRange(data, position, position + n);
        position += n;
        return v;
    }

    /**
     * Reads {@code n} bytes without a length prefix.
     *
     * @param n how many
     * @return the bytes
     */
    public byte[] getRaw(int n) {
        need(n);
        byte[] v = Arrays.copyOfRange(data, position, position + n);
        position += n;
        return v;
    }

    /**
     * Reads a length-prefixed UTF-8 string.
     *
     * @param maxBytes the largest encoded length accepted
     * @return the string
     */
    public String getString(int maxBytes) {
        return new String(getBytes(maxBytes), StandardCharsets.UTF_8);
    }

    /**
     * Reads a non-negative count, no larger than {@code max}.
     *
     * @param max the largest count accepted
     * @return the count
     */
    public int getCount(int max) {
        int n = getInt();
        if (n < 0 || n > max) {
            throw new WireFormatException("count " + n + " outside [0, " + max + "]");
        }
        return n;
    }

    /** @return bytes not read yet */
    public int remaining() {
        return limit - position;
    }

    /** Fails unless every byte has been read: trailing garbage is malformed input. */
    public void expectEnd() {
        if (position != limit) {
            throw new WireFormatException((limit - position) + " unexpected trailing bytes");
        }
    }
}
