package io.softcmi.vmmc;

import io.softcmi.cmi.notify.Notifications;
import io.softcmi.cmi.notify.PendingPut;
import java.lang.foreign.MemorySegment;

/** One checked SendData/GetData: the import, the byte offset in its segment and the local memory. */
record Transfer(Vmmc vmmc, ImportHandle imp, long offset, MemorySegment local, long nwords) {

    /** The manual's checks of SendData and GetData calls, in its order: size, alignment, proxy range, permission. */
    static Transfer check(Vmmc v, MemorySegment local, long proxy, long nwords, boolean send) {
        if (nwords <= 0) {
            throw new VmmcException(VmmcResult.BAD_SIZE, "nwords " + nwords);
        }
        if (local == null) {
            throw new VmmcException(VmmcResult.BAD_ARG, "null local buffer");
        }
        if (local.address() % Vmmc.WORD != 0 || proxy % Vmmc.WORD != 0) {
            throw new VmmcException(VmmcResult.BAD_ALIGNMENT, "local or proxy address");
        }
        if (local.byteSize() < nwords * Vmmc.WORD) {
            throw new VmmcException(VmmcResult.BAD_ARG, "local buffer holds fewer than " + nwords + " words");
        }
        ImportHandle imp = v.destSpace.find(proxy);
        long end = imp == null ? 0 : imp.proxyBuf + imp.nwords * Vmmc.WORD;
        if (imp == null || proxy >= end) {
            throw new VmmcException(VmmcResult.BAD_PROXY_ADDR, "0x" + Long.toHexString(proxy));
        }
        long last = proxy + nwords * Vmmc.WORD - 1;
        if (last >= end) {
            ImportHandle other = v.destSpace.find(last);
            throw other != imp
                ? new VmmcException(VmmcResult.BAD_PROXY_ADDR, "first and last word in different imports")
                : new VmmcException(VmmcResult.BAD_PROXY_EXTENSION, nwords + " words from word "
                    + (proxy - imp.proxyBuf) / Vmmc.WORD + " of a " + imp.nwords + "-word buffer");
        }
        if (!imp.live) {
            throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "unimported");
        }
        if (send && imp.flags.contains(BufFlag.READ_ONLY)) {
            throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "buffer is READ_ONLY");
        }
        if (!send && imp.flags.contains(BufFlag.WRITE_ONLY)) {
            throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "buffer is WRITE_ONLY");
        }
        return new Transfer(v, imp, proxy - imp.proxyBuf, local, nwords);
    }

    /** How {@link #send} waits for the home's answers. */
    enum Mode {
        /** SendData: returns once written; earlier refusals are reported when answered ({@link SendWindow#beforeSend}). */
        PIPELINED,
        /**
         * SendDataNotify: the earlier messages are waited for first (a refusal among them is
         * thrown, and no notification follows a message that failed), then this one returns once
         * written, its answer awaited by the next transfer call.
         */
        AFTER_EARLIER,
        /** The asynchronous transfers: waits for every answer, this one's included. */
        SYNCHRONOUS
    }

    /**
     * Puts the words, then the delivery notification, on the calling thread (so it arrives after
     * them). With {@link SendWindow} enabled, {@link Mode#PIPELINED} and {@link Mode#AFTER_EARLIER}
     * return once both are written to the network (the manual: SendData and SendDataNotify return
     * after the message is transferred to the network); otherwise the earlier pipelined sends are
     * waited for first, then this one. To a direct buffer ({@link ImportHandle#direct}) a message
     * of more than one word goes as two stores, all words but the last, then the last one with
     * the message's notification: the home writes the first store's bytes straight into the
     * receiver's memory, in an order the receiver cannot rely on (a kernel copy), and only the
     * second store, served after the first is complete, makes the last word visible, so a
     * receiver polling the last word of a message sees the whole message.
     */
    void send(boolean notify, Mode mode) {
        try {
            long value = Receiver.encode(offset / Vmmc.WORD, nwords, notify);
            SendWindow w = vmmc.window;
            if (mode != Mode.SYNCHRONOUS && SendWindow.enabled()) {
                if (mode == Mode.PIPELINED) {
                    w.beforeSend();
                } else {
                    w.drainOrThrow();
                }
                w.add(lastWordApart() ? new BothPuts(put(0, nwords - 1, false, true), put(nwords - 1, 1, notify, true))
                    : Notifications.putAndNotifyPipelined(imp.mapping, offset, local.asSlice(0, nwords * Vmmc.WORD), 0, value));
                return;
            }
            w.drainOrThrow();
            // One round trip to a remote home for a message of up to 1 MiB (two to a direct buffer).
            if (lastWordApart()) {
                put(0, nwords - 1, false, false);
                put(nwords - 1, 1, notify, false);
            } else {
                Notifications.putAndNotify(imp.mapping, offset, local.asSlice(0, nwords * Vmmc.WORD), 0, value);
            }
        } catch (RuntimeException e) {
            if (e instanceof VmmcException v) {
                throw v;
            }
            throw Vmmc.fromCmi(e, "SendData");
        }
    }

    private boolean lastWordApart() {
        return imp.direct && nwords > 1;
    }

    /**
     * One store of a message sent in two ({@link #lastWordApart}): {@code words} of its words from
     * word {@code first} on, and a notification for them.
     *
     * @return the pending outcome when {@code pipelined}, else null (the call waited for it)
     */
    private PendingPut put(long first, long words, boolean notify, boolean pipelined) {
        MemorySegment src = local.asSlice(first * Vmmc.WORD, words * Vmmc.WORD);
        long value = Receiver.encode(offset / Vmmc.WORD + first, words, notify);
        if (pipelined) {
            return Notifications.putAndNotifyPipelined(imp.mapping, offset + first * Vmmc.WORD, src, 0, value);
        }
        Notifications.putAndNotify(imp.mapping, offset + first * Vmmc.WORD, src, 0, value);
        return null;
    }

    /** The two stores of one message, awaited as one ({@link SendWindow} counts messages). */
    private record BothPuts(PendingPut body, PendingPut last) implements PendingPut {
        @Override
        public boolean done() {
            return body.done() && last.done();
        }

        @Override
        public void await() {
            RuntimeException first = null;
            try {
                body.await();
            } catch (RuntimeException e) {
                first = e;
            }
            try {
                last.await();
            } catch (RuntimeException e) {
                first = first != null ? first : e;
            }
            if (first != null) {
                throw first;
            }
        }

        @Override
        public long creatorBacklog() {
            return Math.max(body.creatorBacklog(), last.creatorBacklog());
        }
    }

    /** Fetches the words (after the pipelined sends are answered). */
    void get() {
        vmmc.window.drainOrThrow();
        try {
            imp.mapping.get(offset, local.asSlice(0, nwords * Vmmc.WORD));
        } catch (RuntimeException e) {
            throw Vmmc.fromCmi(e, "GetData");
        }
    }
}
