package io.softcmi.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The notification extension's messages: {@link ControlMessage.Notify}, {@link ControlMessage.NotificationNotice}, {@code OP_NOTIFY}. */
class NotificationCodecTest {

    @Test
    void shouldRoundTripNotifyAsAOneWayFrame() {
        Frame f = MessageType.toFrame(new ControlMessage.Notify(12, 4096, -42), 0);
        assertEquals(25, f.type());
        assertEquals(0, f.correlationId());
        assertEquals(24, f.payload().length);
        ControlMessage.Notify back = assertInstanceOf(ControlMessage.Notify.class, MessageType.decode(f));
        assertEquals(new ControlMessage.Notify(12, 4096, -42), back);
    }

    @Test
    void shouldRoundTripNotificationNoticeWithItsSender() {
        byte[] sender = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
        Frame f = MessageType.toFrame(new ControlMessage.NotificationNotice(3, 8, Long.MAX_VALUE, sender), 0);
        assertEquals(131, f.type());
        ControlMessage.NotificationNotice back =
            assertInstanceOf(ControlMessage.NotificationNotice.class, MessageType.decode(f));
        assertEquals(3, back.segId());
        assertEquals(8, back.offset());
        assertEquals(Long.MAX_VALUE, back.value());
        assertArrayEquals(sender, back.sender());
    }

    @Test
    void shouldRejectATruncatedNotify() {
        byte[] payload = MessageType.toFrame(new ControlMessage.Notify(1, 2, 3), 0).payload();
        Frame cut = new Frame(MessageType.NOTIFY.id(), 0, 0, Arrays.copyOf(payload, payload.length - 1));
        assertThrows(WireFormatException.class, () -> MessageType.decode(cut));
    }

    @Test
    void shouldRejectTrailingBytesAfterANotice() {
        byte[] payload = MessageType.toFrame(new ControlMessage.NotificationNotice(1, 2, 3, new byte[] {4}), 0).payload();
        Frame longer = new Frame(MessageType.NOTIFICATION_NOTICE.id(), 0, 0, Arrays.copyOf(payload, payload.length + 1));
        assertThrows(WireFormatException.class, () -> MessageType.decode(longer));
    }

    @Test
    void shouldRejectANoticeWhoseSenderLengthOverrunsThePayload() {
        WireWriter w = new WireWriter().putLong(1).putLong(2).putLong(3).putInt(1000);
        Frame bad = new Frame(MessageType.NOTIFICATION_NOTICE.id(), 0, 0, w.toByteArray());
        assertThrows(WireFormatException.class, () -> MessageType.decode(bad));
    }

    @Test
    void shouldLayOutANotifyDataRequestAsAHeaderWithoutPayload() {
        ByteBuffer b = DataProtocol.newBuffer();
        DataProtocol.writeRequest(b, DataProtocol.OP_NOTIFY, 9, 7, 5, 11, 12, 4096, -7, 0, 0);
        assertEquals(DataProtocol.REQUEST_HEADER, b.position());
        assertEquals(DataProtocol.REQUEST_HEADER - 4, b.getInt(0));
        assertEquals(0, DataProtocol.requestPayload(b.getInt(0)));
        assertEquals(DataProtocol.OP_NOTIFY, b.get(4));
        assertEquals(9, b.getLong(8));
        assertEquals(7, b.getLong(16));
        assertEquals(4096, b.getLong(48));
        assertEquals(-7, b.getLong(56));
    }
}
