package io.softcmi.vmmc;

import io.softcmi.cmi.notify.DirectRoute;
import io.softcmi.cmi.notify.Notifications;
import io.softcmi.cmi.notify.PendingPut;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

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
     *
     * <p>The path (docs/vmmc.md, "Order across the two paths"): an import with a route sends a
     * message of at most {@link #DIRECT_MAX_BYTES} through the route; a larger one stores its
     * words through the home (which streams them better, measured: benchmarks.md, "VMMC direct
     * delivery") and, if the receiver needs a notice (a notification, or a buffer that does not
     * receive in place), sends that notice through the route once the home has answered the
     * store. So every notice of an import with a route goes through the route, in order; an
     * import without one sends everything through the home.
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
            boolean pipelined = mode != Mode.SYNCHRONOUS && SendWindow.enabled();
            if (mode == Mode.PIPELINED && pipelined) {
                w.beforeSend();
            } else {
                w.drainOrThrow();
            }
            DirectRoute route = imp.route;
            if (route != null && src.byteSize() <= DIRECT_MAX_BYTES) {
                frame(SendWindow.Path.ROUTE, pipelined,
                    () -> storeOnly ? route.put(offset, src) : route.putAndNotify(offset, src, 0, value));
                return;
            }
            homeStore(src, value, pipelined, storeOnly || route != null);
            if (route != null && !storeOnly) {
                // The notice after the store is answered (onPath waits for it): it must not reach
                // the receiver before the words are in the segment, nor before the notices of
                // the earlier messages, which went through the route too.
                frame(SendWindow.Path.ROUTE_NOTICE, pipelined, () -> route.putAndNotify(offset, src.asSlice(0, 0), 0, value));
            }
        } catch (RuntimeException e) {
            if (e instanceof VmmcException v) {
                throw v;
            }
            throw Vmmc.fromCmi(e, "SendData");
        }
    }

    /** The words through the home: the store alone ({@code storeOnly}), else the store and its notice. */
    private void homeStore(MemorySegment src, long value, boolean pipelined, boolean storeOnly) {
        SendWindow.Path path = storeOnly ? SendWindow.Path.HOME_STORE : SendWindow.Path.HOME_NOTICE;
        if (pipelined) {
            frame(path, true, () -> storeOnly ? Notifications.putPipelined(imp.mapping, offset, src)
                : Notifications.putAndNotifyPipelined(imp.mapping, offset, src, 0, value));
        } else {
            vmmc.window.onPath(path);
            if (storeOnly) {
                imp.mapping.put(offset, src); // one round trip to a remote home for up to 1 MiB
            } else {
                Notifications.putAndNotify(imp.mapping, offset, src, 0, value);
            }
        }
    }

    /** Sends one frame on {@code path} once the frames it must follow are answered; pipelined, or awaited. */
    private void frame(SendWindow.Path path, boolean pipelined, Supplier<PendingPut> start) {
        SendWindow w = vmmc.window;
        w.onPath(path);
        PendingPut p = start.get();
        if (pipelined) {
            w.add(p, path);
        } else {
            p.await();
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
