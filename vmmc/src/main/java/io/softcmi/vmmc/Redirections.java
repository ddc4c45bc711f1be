package io.softcmi.vmmc;

import java.lang.foreign.MemorySegment;

/**
 * The redirection calls on an export ({@code vmmc_PostRedir}, {@code vmmc_EndRedir},
 * {@code vmmc_DataEnd}, {@code vmmc_ClearDataEnd}): they set and read the redirection state an
 * {@link ExportHandle} keeps under its monitor, which {@link Receiver} applies to arriving words.
 * The handle has been checked as a live export of the calling process.
 */
final class Redirections {
    private Redirections() {
    }

    /** {@code vmmc_PostRedir}, as documented on {@link Vmmc#postRedir}. */
    static void post(ExportHandle h, long redirOffsetWords, long numWords, MemorySegment userBuf) {
        requireRedirectable(h);
        if (numWords <= 0) {
            throw new VmmcException(VmmcResult.BAD_SIZE, "numWords " + numWords);
        }
        if (userBuf == null || redirOffsetWords < 0 || redirOffsetWords + numWords > h.nwords
                || userBuf.byteSize() < numWords * Vmmc.WORD) {
            throw new VmmcException(VmmcResult.BAD_ARG, "redirection window or user buffer");
        }
        if (userBuf.address() % Vmmc.WORD != 0) {
            throw new VmmcException(VmmcResult.BAD_ALIGNMENT, "user buffer");
        }
        synchronized (h) {
            if (h.redirPosted) {
                throw new VmmcException(VmmcResult.BAD_RBUF_STATE, "a redirection is already posted");
            }
            h.redirBuf = userBuf;
            h.redirOffset = redirOffsetWords;
            h.redirWords = numWords;
            h.redirPosted = true;
            h.redirPosts++;
            h.redirDone = false;
            h.redirFirst = -1;
            h.redirCount = 0;
        }
    }

    /** {@code vmmc_EndRedir}, as documented on {@link Vmmc#endRedir}. */
    static Redirection end(ExportHandle h) {
        synchronized (h) {
            if (!h.redirPosted) {
                throw new VmmcException(VmmcResult.BAD_RBUF_STATE, "no redirection posted");
            }
            h.redirPosted = false;
            Redirection r = new Redirection(h.redirCount, h.redirCount == 0 ? 0 : h.redirFirst);
            h.redirBuf = null;
            return r;
        }
    }

    /** {@code vmmc_DataEnd}, as documented on {@link Vmmc#dataEnd}. */
    static long dataEnd(ExportHandle h) {
        requireRedirectable(h);
        return h.dataEnd;
    }

    /** {@code vmmc_ClearDataEnd}, as documented on {@link Vmmc#clearDataEnd}. */
    static void clearDataEnd(ExportHandle h) {
        requireRedirectable(h);
        h.dataEnd = VmmcResult.NO_SUCH_ERROR.code();
    }

    private static void requireRedirectable(ExportHandle h) {
        if (!h.flags.contains(BufFlag.REDIRECTABLE)) {
            throw new VmmcException(VmmcResult.BAD_RBUF_STATE, "buffer is not REDIRECTABLE");
        }
    }
}
