package io.softcmi.vmmc;

import io.softcmi.cmi.notify.DirectRoute;
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
        if (v.closed) { // a handler still running while its endpoint closes
            throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "the endpoint is closed");
        }
        if (send && imp.flags.contains(BufFlag.READ_ONLY)) {
            throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "buffer is READ_ONLY");
        }
        if (!send && imp.flags.contains(BufFlag.WRITE_ONLY)) {
            throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "buffer is WRITE_ONLY");
        }
        return new Transfer(v, imp, proxy - imp.proxyBuf, local, nwords);
    }

    /** Largest message sent straight to an exporter that serves an inlet ({@code vmmc.directMaxBytes}, default 32 KiB). */
    static final long DIRECT_MAX_BYTES = Long.getLong("vmmc.directMaxBytes", 32 * 1024);

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
     * waited for first, then this one.
     */
    void send(boolean notify, Mode mode) {
        try {
            MemorySegment src = local.asSlice(0, nwords * Vmmc.WORD);
            long value = Receiver.encode(offset / Vmmc.WORD, nwords, notify);
            // A message without notification into a buffer that receives in place needs nothing
            // of the receiver: no notice, just the store (the receiver has nothing to copy and
            // no handler to run; a later notification on this import still comes after it).
            boolean storeOnly = !notify && imp.inPlace;
            SendWindow w = vmmc.window;
            // Straight to the exporting process where it serves an inlet and the message is at
            // most vmmc.directMaxBytes, else through the home (larger messages stream better
            // there, measured: benchmarks.md, "VMMC direct delivery"). The two paths are not
            // ordered with each other: the window is drained when a thread's messages change path
            // (SendWindow#onPath).
            DirectRoute route = src.byteSize() <= DIRECT_MAX_BYTES ? imp.route : null;
            w.onPath(route != null);
            if (mode != Mode.SYNCHRONOUS && SendWindow.enabled()) {
                if (mode == Mode.PIPELINED) {
                    w.beforeSend();
                } else {
                    w.drainOrThrow();
                }
                w.add(start(route, src, value, storeOnly));
                return;
            }
            w.drainOrThrow();
            if (route != null) {
                start(route, src, value, storeOnly).await();
            } else if (storeOnly) {
                // One round trip to a remote home for a message of up to 1 MiB.
                imp.mapping.put(offset, src);
            } else {
                Notifications.putAndNotify(imp.mapping, offset, src, 0, value);
            }
        } catch (RuntimeException e) {
            if (e instanceof VmmcException v) {
                throw v;
            }
            throw Vmmc.fromCmi(e, "SendData");
        }
    }

    /** Starts the message on its path: the route to the exporter, or the home. */
    private PendingPut start(DirectRoute route, MemorySegment src, long value, boolean storeOnly) {
        if (route != null) {
            return storeOnly ? route.put(offset, src) : route.putAndNotify(offset, src, 0, value);
        }
        return storeOnly ? Notifications.putPipelined(imp.mapping, offset, src)
            : Notifications.putAndNotifyPipelined(imp.mapping, offset, src, 0, value);
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
