package io.softcmi.cmi.internal.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Loads and stores of 1, 2, 4 or 8 bytes in a cached line's bytes, in the platform's byte order
 * (the mapping's): the cache's hits ({@link SegmentCache#load}, {@link LineHint}) and stores.
 */
final class LineWords {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private LineWords() {
    }

    /**
     * @param d a line's bytes
     * @param at offset in the line
     * @param width 1, 2, 4 or 8
     * @return the value, sign-extended to a long
     */
    static long get(byte[] d, int at, int width) {
        return switch (width) {
            case 1 -> d[at];
            case 2 -> (short) SHORT.get(d, at);
            case 4 -> (int) INT.get(d, at);
            default -> (long) LONG.get(d, at);
        };
    }

    /**
     * @param d a line's bytes
     * @param at offset in the line
     * @param width 1, 2, 4 or 8
     * @param bits the value (its low {@code width} bytes are stored)
     */
    static void put(byte[] d, int at, int width, long bits) {
        switch (width) {
            case 1 -> d[at] = (byte) bits;
            case 2 -> SHORT.set(d, at, (short) bits);
            case 4 -> INT.set(d, at, (int) bits);
            default -> LONG.set(d, at, bits);
        }
    }
}
