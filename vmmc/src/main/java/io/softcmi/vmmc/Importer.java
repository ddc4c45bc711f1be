package io.softcmi.vmmc;

import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.notify.DirectRoute;
import io.softcmi.cmi.notify.Notifications;
import io.softcmi.vmmc.internal.Directory;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The import calls: vmmc_ImportRecvBuf (finds the export in the session directory, then
 * {@code seg_imp}, {@code seg_set_token}, {@code seg_at}), the status of an asynchronous import,
 * and vmmc_UnimportRecvBuf.
 */
final class Importer {
    /** @return how long an import waits for its export: {@code vmmc.importTimeoutMs}, default 30 s */
    static long timeoutNanos() {
        return TimeUnit.MILLISECONDS.toNanos(Long.getLong("vmmc.importTimeoutMs", 30_000));
    }

    private Importer() {
    }

    static ImportHandle importNow(Vmmc v, VmmcNode node, VmmcPid pid, int rbufid, long timeoutNanos) {
        VmmcNode n = v.session.check(node);
        if (pid == null || pid.value() <= 0) {
            throw new VmmcException(VmmcResult.NO_SUCH_PROCESS, String.valueOf(pid));
        }
        Directory dir = v.directory;
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = 100_000;
        Optional<Directory.Entry> entry;
        while ((entry = dir.lookup(n.name(), pid.value(), rbufid)).isEmpty()) {
            if (dir.withdrawn(n.name(), pid.value(), rbufid)) {
                throw new VmmcException(VmmcResult.BAD_RBUF_STATE, "rbufid " + rbufid + " of " + n.name() + "." + pid.value() + " was unexported");
            }
            if (System.nanoTime() - deadline > 0 || Thread.currentThread().isInterrupted()) {
                throw dir.registered(n.name(), pid.value())
                    ? new VmmcException(VmmcResult.BAD_RBUF_STATE, "rbufid " + rbufid + " not exported")
                    : new VmmcException(VmmcResult.NO_SUCH_PROCESS, n.name() + "." + pid.value());
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 20_000_000);
        }
        Directory.Entry e = entry.get();
        Set<BufFlag> flags = EnumSet.noneOf(BufFlag.class);
        for (String f : e.flags().split(",")) {
            if (!f.isBlank()) {
                flags.add(BufFlag.valueOf(f.trim()));
            }
        }
        long proxy = v.destSpace.reserve(e.nwords());
        CmiSegment seg = null;
        CmiMapping m;
        try {
            seg = v.ctx.segImp(RemoteSegmentHandle.fromBytes(e.handle()));
            v.ctx.segSetToken(seg, CmiToken.fromBytes(e.token()));
            m = v.ctx.segAt(seg, Set.of());
        } catch (CmiException | io.softcmi.cmi.CmiAccessException x) {
            if (seg != null) {
                try {
                    v.ctx.segRemove(seg);
                } catch (RuntimeException y) {
                    v.debug("failed import cleanup: " + y.getMessage());
                }
            }
            // NO_MEM where CMI ran out of resources; otherwise the export is not importable (gone, token refused)
            throw Vmmc.fromCmi(x, VmmcResult.BAD_RBUF_STATE, "import of rbufid " + rbufid);
        }
        ImportHandle h = new ImportHandle(v, new ProcessId(n, pid), rbufid, proxy, e.nwords(), flags, seg, m, e.inPlace(),
            route(v, e.inlet()));
        v.destSpace.add(h);
        return h;
    }

    /** @return a route to the exporter's inlet, or null (none published, direct delivery off, or it cannot be reached: the home path) */
    private static DirectRoute route(Vmmc v, byte[] inlet) {
        if (inlet.length == 0 || !Exports.directDelivery()) {
            return null;
        }
        try {
            return Notifications.routeTo(v.ctx, inlet);
        } catch (CmiException | io.softcmi.cmi.CmiAccessException x) {
            v.debug("no direct route to the exporter, messages go through the home: " + x.getMessage());
            return null;
        }
    }

    /** {@code vmmc_ImportRecvBufStatus}, as documented on {@link Vmmc#importRecvBufStatus}. */
    static ImportHandle status(Vmmc v, ImportRequest r) {
        if (r == null || r.owner != v) {
            throw new VmmcException(VmmcResult.BAD_ASYNC_HANDLE, "not an import request of this process");
        }
        if (!r.result.isDone()) {
            throw new VmmcException(VmmcResult.IN_PROGRESS, "import");
        }
        synchronized (r) {
            if (r.reported) {
                throw new VmmcException(VmmcResult.STATE_HANDLE, "import already reported");
            }
            r.reported = true;
        }
        try {
            return r.result.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof VmmcException x) {
                throw x;
            }
            throw new VmmcException(VmmcResult.BAD_RBUF_STATE, String.valueOf(e.getCause()));
        }
    }

    /** {@code vmmc_UnimportRecvBuf}, as documented on {@link Vmmc#unimportRecvBuf}. */
    static void unimport(Vmmc v, ImportHandle h) {
        if (h == null || h.owner != v) {
            throw new VmmcException(VmmcResult.BAD_ARG, "not an import handle of this process");
        }
        synchronized (h) { // the main thread and a handler may both unimport it: one wins
            if (!h.live) {
                throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "already unimported");
            }
            h.live = false; // later transfers through it fail (BAD_IBUF_STATE); those already checked are awaited below
        }
        v.async.drain();
        VmmcException earlier = v.window.drain();
        if (earlier != null) {
            v.debug("unimport: " + earlier.getMessage());
        }
        v.destSpace.remove(h);
        try {
            if (h.route != null) {
                h.route.close();
            }
            v.ctx.segDt(h.mapping);
            v.ctx.segRemove(h.segment);
        } catch (CmiException e) {
            v.debug("unimport cleanup: " + e.getMessage());
        }
    }
}
