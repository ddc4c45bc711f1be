package io.softcmi.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WireReaderWriterTest {

    private static WireReader readerOf(WireWriter w) {
        return new WireReader(w.toByteArray());
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    @Test
    void shouldRoundTripEveryFieldKind() {
        byte[] blob = {1, 2, 3, (byte) 0xff};
        WireWriter w = new WireWriter()
            .putByte(0).putByte(0x7f).putByte(0x80).putByte(0xff)
            .putBoolean(true).putBoolean(false)
            .putInt(0).putInt(-1).putInt(Integer.MIN_VALUE).putInt(Integer.MAX_VALUE)
            .putLong(0).putLong(-1).putLong(Long.MIN_VALUE).putLong(Long.MAX_VALUE)
            .putBytes(new byte[0]).putBytes(blob).putRaw(blob)
            .putString("").putString("cmi \u00e9\u4e2d\ud83d\ude00")
            .putInt(3);
        WireReader r = readerOf(w);
        assertEquals(0, r.getByte());
        assertEquals(0x7f, r.getByte());
        assertEquals(0x80, r.getByte(), "bytes read back unsigned");
        assertEquals(0xff, r.getByte());
        assertTrue(r.getBoolean());
        assertFalse(r.getBoolean());
        assertEquals(0, r.getInt());
        assertEquals(-1, r.getInt());
        assertEquals(Integer.MIN_VALUE, r.getInt());
        assertEquals(Integer.MAX_VALUE, r.getInt());
        assertEquals(0L, r.getLong());
        assertEquals(-1L, r.getLong());
        assertEquals(Long.MIN_VALUE, r.getLong());
        assertEquals(Long.MAX_VALUE, r.getLong());
        assertArrayEquals(new byte[0], r.getBytes(0));
        assertArrayEquals(blob, r.getBytes(blob.length));
        assertArrayEquals(blob, r.getRaw(blob.length));
        assertEquals("", r.getString(0));
        assertEquals("cmi \u00e9\u4e2d\ud83d\ude00", r.getString(100));
        assertEquals(3, r.getCount(3));
        assertEquals(0, r.remaining());
        r.expectEnd();
    }

    @Test
    void shouldWriteIntegersBigEndian() {
        WireWriter w = new WireWriter().putInt(0x01020304).putLong(0x05060708090a0b0cL);
        assertArrayEquals(bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), w.toByteArray());
        assertEquals(12, w.length());
    }

    @Test
    void shouldPrefixBytesAndStringsWithTheirLength() {
        assertArrayEquals(bytes(0, 0, 0, 2, 'h', 'i'), new WireWriter().putString("hi").toByteArray());
        assertArrayEquals(bytes(0, 0, 0, 1, 9), new WireWriter().putBytes(bytes(9)).toByteArray());
        assertArrayEquals(bytes(9), new WireWriter().putRaw(bytes(9)).toByteArray());
    }

    @Test
    void shouldGrowPastTheInitialCapacity() {
        WireWriter w = new WireWriter(1);
        for (long i = 0; i < 10_000; i++) {
            w.putLong(i);
        }
        w.putBytes(new byte[100_000]);
        WireReader r = readerOf(w);
        for (long i = 0; i < 10_000; i++) {
            assertEquals(i, r.getLong());
        }
        assertEquals(100_000, r.getBytes(100_000).length);
        r.expectEnd();
    }

    @Test
    void shouldCopyOnToByteArray() {
        WireWriter w = new WireWriter().putInt(7);
        byte[] first = w.toByteArray();
        first[3] = 0;
        assertEquals(7, readerOf(w).getInt());
    }

    @Test
    void shouldReadOnlyTheGivenSlice() {
        byte[] data = bytes(0xaa, 0, 0, 0, 5, 0xbb);
        WireReader r = new WireReader(data, 1, 4);
        assertEquals(4, r.remaining());
        assertEquals(5, r.getInt());
        r.expectEnd();
        assertThrows(WireFormatException.class, r::getByte);
    }

    @Test
    void shouldRejectASliceOutsideTheArray() {
        byte[] data = new byte[4];
        assertThrows(WireFormatException.class, () -> new WireReader(data, -1, 2));
        assertThrows(WireFormatException.class, () -> new WireReader(data, 0, -1));
        assertThrows(WireFormatException.class, () -> new WireReader(data, 3, 2));
        assertThrows(WireFormatException.class, () -> new WireReader(data, 5, 0));
    }

    @Test
    void shouldRejectASliceWhoseEndOverflows() {
        // offset + length wraps to a negative int: must not pass as a slice of the array.
        byte[] data = new byte[4];
        assertThrows(WireFormatException.class, () -> new WireReader(data, 1, Integer.MAX_VALUE));
    }

    @Test
    void shouldRejectTruncatedPrimitives() {
        assertThrows(WireFormatException.class, () -> new WireReader(new byte[0]).getByte());
        assertThrows(WireFormatException.class, () -> new WireReader(new byte[0]).getBoolean());
        assertThrows(WireFormatException.class, () -> new WireReader(new byte[3]).getInt());
        assertThrows(WireFormatException.class, () -> new WireReader(new byte[7]).getLong());
        assertThrows(WireFormatException.class, () -> new WireReader(new byte[3]).getCount(10));
        assertThrows(WireFormatException.class, () -> new WireReader(new byte[4]).getRaw(5));
    }

    @Test
    void shouldRejectATruncatedLengthPrefix() {
        assertThrows(WireFormatException.class, () -> new WireReader(bytes(0, 0, 0)).getBytes(10));
        assertThrows(WireFormatException.class, () -> new WireReader(bytes(0, 0)).getString(10));
    }

    @Test
    void shouldRejectBytesShorterThanTheirPrefix() {
        byte[] nine = new WireWriter().putInt(10).putRaw(new byte[9]).toByteArray();
        assertThrows(WireFormatException.class, () -> new WireReader(nine).getBytes(100));
        assertThrows(WireFormatException.class, () -> new WireReader(nine).getString(100));
    }

    @Test
    void shouldRejectNegativeLengths() {
        byte[] minusOne = new WireWriter().putInt(-1).putRaw(new byte[8]).toByteArray();
        assertThrows(WireFormatException.class, () -> new WireReader(minusOne).getBytes(100));
        assertThrows(WireFormatException.class, () -> new WireReader(minusOne).getString(100));
        assertThrows(WireFormatException.class, () -> new WireReader(minusOne).getCount(100));
        byte[] min = new WireWriter().putInt(Integer.MIN_VALUE).toByteArray();
        assertThrows(WireFormatException.class, () -> new WireReader(min).getBytes(100));
        assertThrows(WireFormatException.class, () -> new WireReader(min).getCount(100));
        assertThrows(WireFormatException.class, () -> new WireReader(new byte[8]).getRaw(-1));
    }

    @Test
    void shouldRejectLengthsAboveTheLimitEvenWhenTheBytesArePresent() {
        byte[] five = new WireWriter().putBytes(new byte[5]).toByteArray();
        assertThrows(WireFormatException.class, () -> new WireReader(five).getBytes(4));
        assertThrows(WireFormatException.class, () -> new WireReader(five).getString(4));
        assertEquals(5, new WireReader(five).getBytes(5).length);
        byte[] count = new WireWriter().putInt(11).toByteArray();
        assertThrows(WireFormatException.class, () -> new WireReader(count).getCount(10));
        assertEquals(11, new WireReader(count).getCount(11));
    }

    @Test
    void shouldNotAllocateAHugeArrayForAHugeLength() {
        // A 4-byte input claiming 2 GiB must fail on the length, not with OutOfMemoryError.
        byte[] huge = new WireWriter().putInt(Integer.MAX_VALUE).toByteArray();
        assertThrows(WireFormatException.class, () -> new WireReader(huge).getBytes(Integer.MAX_VALUE));
        assertThrows(WireFormatException.class, () -> new WireReader(huge).getRaw(Integer.MAX_VALUE));
    }

    @Test
    void shouldRejectABooleanOtherThanZeroOrOne() {
        assertThrows(WireFormatException.class, () -> new WireReader(bytes(2)).getBoolean());
        assertThrows(WireFormatException.class, () -> new WireReader(bytes(0xff)).getBoolean());
    }

    @Test
    void shouldRejectTrailingBytes() {
        WireReader r = new WireReader(bytes(0, 0, 0, 1, 0x42));
        assertEquals(1, r.getInt());
        assertEquals(1, r.remaining());
        WireFormatException e = assertThrows(WireFormatException.class, r::expectEnd);
        assertTrue(e.getMessage().contains("trailing"), e.getMessage());
    }

    @Test
    void shouldKeepItsPositionAfterARejectedRead() {
        WireReader r = new WireReader(bytes(0, 0, 0, 9, 1));
        assertThrows(WireFormatException.class, () -> r.getBytes(100));
        assertEquals(1, r.remaining(), "the length was consumed, nothing after it");
        assertEquals(1, r.getByte());
    }

    @Test
    void shouldDecodeMalformedUtf8WithoutThrowing() {
        byte[] bad = new WireWriter().putBytes(bytes(0xc3, 0x28, 0xff)).toByteArray();
        assertEquals("\ufffd(\ufffd", new WireReader(bad).getString(10), "replacement characters, no exception");
    }
}
