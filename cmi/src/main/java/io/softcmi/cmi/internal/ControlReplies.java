package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.wire.ControlMessage;

/** What a {@link NodeChannel} call makes of the node's reply: the caller's type, or a {@code CmiException}. */
final class ControlReplies {
    private ControlReplies() {
    }

    /**
     * Records the call in its JFR event, then turns an {@link ControlMessage.ErrorReply} into a
     * {@code CmiException} with the node's error code, and a reply of another type than expected
     * into INVAL.
     *
     * @param request the request sent
     * @param reply the node's reply
     * @param replyType the reply class expected
     * @param jfr the call's event, begun before the request was sent
     * @param <T> the reply type
     * @return the reply
     */
    static <T extends ControlMessage> T expect(ControlMessage request, ControlMessage reply, Class<T> replyType,
            JfrEvents.ControlCall jfr) {
        if (jfr.shouldCommit()) {
            jfr.request = String.valueOf(request.type());
            jfr.reply = reply instanceof ControlMessage.ErrorReply e ? "error " + e.code() + ": " + e.message()
                : String.valueOf(reply.type());
            jfr.commit();
        }
        if (reply instanceof ControlMessage.ErrorReply e) {
            CmiError[] codes = CmiError.values();
            CmiError code = e.code() >= 0 && e.code() < codes.length ? codes[e.code()] : CmiError.INVAL;
            throw Errors.fail(code, e.message());
        }
        if (!replyType.isInstance(reply)) {
            throw Errors.fail(CmiError.INVAL, "node answered " + reply.type() + " to " + request.type());
        }
        return replyType.cast(reply);
    }
}
