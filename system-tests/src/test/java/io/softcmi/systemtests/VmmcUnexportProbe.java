package io.softcmi.systemtests;

import io.softcmi.vmmc.BufFlag;
import io.softcmi.vmmc.ExportHandle;
import io.softcmi.vmmc.ImportHandle;
import io.softcmi.vmmc.ProcessId;
import io.softcmi.vmmc.Vmmc;
import io.softcmi.vmmc.VmmcException;
import io.softcmi.vmmc.VmmcNode;
import io.softcmi.vmmc.VmmcPid;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Cross-node unexport: the master (n1) exports buffer 1, spawns a peer on n2 that imports it and
 * sends; the master unexports it and tells the peer (buffer 3 of the peer), which then sends
 * again (a pipelined SendData, whose refusal the next call reports, then a SendDataNotify) and
 * imports again, and prints the result codes.
 */
public final class VmmcUnexportProbe {
    private VmmcUnexportProbe() {
    }

    /**
     * Entry point.
     *
     * @param args none for the master; {@code peer} for the spawned peer
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        Semaphore got = new Semaphore(0);
        try (Vmmc v = Vmmc.init()) {
            if (args.length == 0) {
                MemorySegment buf = v.allocate(16);
                ExportHandle e = v.exportRecvBuf(buf, 16, 1, (a, val) -> got.release(), EnumSet.of(BufFlag.READWRITE), 0);
                VmmcNode n2 = v.nameToNode("n2");
                VmmcPid peer = v.spawn(VmmcUnexportProbe.class.getName(), new String[] {"peer"}, n2);
                if (!got.tryAcquire(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no message from the peer");
                }
                System.out.println("probe: master got " + buf.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0));
                v.unexportRecvBuf(e);
                ImportHandle go = v.importRecvBuf(n2, peer, 3);
                v.sendDataNotify(v.allocate(1), go.proxyBuf(), 1);
                System.out.println("probe: master unexported");
            } else {
                MemorySegment goBuf = v.allocate(1);
                v.exportRecvBuf(goBuf, 1, 3, (a, val) -> got.release(), EnumSet.of(BufFlag.WRITE_ONLY), 0);
                ProcessId master = v.parent().orElseThrow();
                ImportHandle h = v.importRecvBuf(master.node(), master.pid(), 1);
                MemorySegment w = v.allocate(1);
                w.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0, 42);
                v.sendDataNotify(w, h.proxyBuf(), 1);
                if (!got.tryAcquire(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no go from the master");
                }
                // SendData is pipelined (returns once on the network): the home's refusal comes back
                // with the next transfer call, here a SendDataNotify, which waits for it.
                System.out.println("probe: send after unexport: " + result(() -> v.sendData(w, h.proxyBuf(), 1)));
                System.out.println("probe: next send: " + result(() -> v.sendDataNotify(w, h.proxyBuf(), 1)));
                // SendDataNotify returns once on the network too (after the earlier sends are
                // answered): its own refusal comes with the next transfer call.
                System.out.println("probe: notify after unexport: " + result(() -> v.sendDataNotify(w, h.proxyBuf(), 1)));
                System.out.println("probe: get after notify: " + result(() -> v.getData(w, h.proxyBuf(), 1)));
                System.out.println("probe: import after unexport: " + result(() -> v.importRecvBuf(master.node(), master.pid(), 1)));
            }
        }
    }

    private static String result(Runnable r) {
        try {
            r.run();
            return "vmmc_Success";
        } catch (VmmcException e) {
            return e.result().specName();
        }
    }
}
