package io.softcmi.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FrameIOTest {

    private static ReadableByteChannel channelOf(byte[] bytes) {
        return Channels.newChannel(new ByteArrayInputStream(bytes));
    }

    private static byte[] encoded(Frame f) {
        ByteBuffer b = FrameIO.encode(f);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static void assertFrameEquals(Frame expected, Frame actual) {
        assertEquals(expected.type(), actual.type());
        assertEquals(expected.flags(), actual.flags());
        assertEquals(expected.correlationId(), actual.correlationId());
        assertArrayEquals(expected.payload(), actual.payload());
    }

    @Test
    void shouldRoundTripFramesOverAPipe() throws Exception {
        byte[] big = new byte[1 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        List<Frame> frames = List.of(
            new Frame(MessageType.OK.id(), 0, 1, new byte[0]),
            new Frame(255, 0xffff, -1L, new byte[] {1, 2, 3}),
            new Frame(0, 0, Long.MIN_VALUE, new byte[] {0}),
            new Frame(MessageType.SEG_GET.id(), 0, 42, big));
        Pipe pipe = Pipe.open();
        // A 1 MiB frame does not fit the pipe's buffer: write from another thread.
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (Pipe.SinkChannel sink = pipe.sink()) {
                for (Frame f : frames) {
                    FrameIO.write(sink, f);
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        List<Frame> read = new ArrayList<>();
        try (Pipe.SourceChannel source = pipe.source()) {
            Frame f;
            while ((f = FrameIO.read(source)) != null) {
                read.add(f);
            }
        }
        writer.get(20, TimeUnit.SECONDS);
        assertEquals(frames.size(), read.size());
        for (int i = 0; i < frames.size(); i++) {
            assertFrameEquals(frames.get(i), read.get(i));
        }
    }

    @Test
    void shouldEncodeTheDocumentedHeader() {
        byte[] b = encoded(new Frame(0x41, 0x0102, 0x0a0b0c0d0e0f1011L, new byte[] {7, 8}));
        assertArrayEquals(new byte[] {0, 0, 0, 14, 1, 0x41, 1, 2, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 7, 8}, b);
    }

    @Test
    void shouldReturnNullAtACleanEndOfStream() throws IOException {
        assertNull(FrameIO.read(channelOf(new byte[0])));
        Pipe pipe = Pipe.open();
        pipe.sink().close();
        try (Pipe.SourceChannel source = pipe.source()) {
            assertNull(FrameIO.read(source));
        }
    }

    @Test
    void shouldReturnNullAfterTheLastWholeFrame() throws IOException {
        ReadableByteChannel ch = channelOf(encoded(new Frame(65, 0, 3, new byte[0])));
        assertEquals(3, FrameIO.read(ch).correlationId());
        assertNull(FrameIO.read(ch));
    }

    @Test
    void shouldFailWhenTheStreamEndsInsideAFrame() {
        byte[] whole = encoded(new Frame(65, 0, 3, new byte[] {1, 2, 3}));
        for (int cut = 1; cut < whole.length; cut++) {
            byte[] part = java.util.Arrays.copyOf(whole, cut);
            assertThrows(EOFException.class, () -> FrameIO.read(channelOf(part)), "cut at " + cut);
        }
    }

    @Test
    void shouldRejectALengthShorterThanTheHeader() {
        for (int length : new int[] {-1, Integer.MIN_VALUE, 0, 1, Frame.HEADER_AFTER_LENGTH - 1}) {
            byte[] b = ByteBuffer.allocate(4 + 64).putInt(length).array();
            assertThrows(WireFormatException.class, () -> FrameIO.read(channelOf(b)), "length " + length);
        }
    }

    @Test
    void shouldRejectALengthAboveTheMaximumBeforeAllocating() {
        for (int length : new int[] {Frame.MAX_LENGTH + 1, Integer.MAX_VALUE}) {
            byte[] b = ByteBuffer.allocate(4 + 64).putInt(length).array();
            assertThrows(WireFormatException.class, () -> FrameIO.read(channelOf(b)), "length " + length);
        }
    }

    @Test
    void shouldAcceptAnEmptyPayload() throws IOException {
        byte[] b = ByteBuffer.allocate(4 + Frame.HEADER_AFTER_LENGTH).putInt(Frame.HEADER_AFTER_LENGTH)
            .put((byte) Frame.VERSION).put((byte) 65).array();
        Frame f = FrameIO.read(channelOf(b));
        assertEquals(65, f.type());
        assertEquals(0, f.payload().length);
    }

    @Test
    void shouldRejectAnotherProtocolVersion() {
        for (int version : new int[] {0, Frame.VERSION + 1, 0xff}) {
            byte[] b = encoded(new Frame(65, 0, 1, new byte[] {1}));
            b[4] = (byte) version;
            WireFormatException e = assertThrows(WireFormatException.class, () -> FrameIO.read(channelOf(b)));
            assertTrue(e.getMessage().contains("version"), e.getMessage());
        }
    }

    @Test
    void shouldReadTypeAndFlagsUnsigned() throws IOException {
        Frame f = FrameIO.read(channelOf(encoded(new Frame(0xfe, 0xfffe, 0, new byte[0]))));
        assertEquals(0xfe, f.type());
        assertEquals(0xfffe, f.flags());
    }

    @Test
    void shouldRefuseToEncodeAFrameAboveTheMaximum() {
        Frame tooBig = new Frame(1, 0, 0, new byte[Frame.MAX_LENGTH - Frame.HEADER_AFTER_LENGTH + 1]);
        assertThrows(WireFormatException.class, () -> FrameIO.encode(tooBig));
        Frame largest = new Frame(1, 0, 0, new byte[Frame.MAX_LENGTH - Frame.HEADER_AFTER_LENGTH]);
        assertEquals(4 + Frame.MAX_LENGTH, FrameIO.encode(largest).remaining());
    }
}
