package io.softcmi.vmmc.samples;

import io.softcmi.vmmc.BufFlag;
import io.softcmi.vmmc.ImportHandle;
import io.softcmi.vmmc.ProcessId;
import io.softcmi.vmmc.Vmmc;
import io.softcmi.vmmc.VmmcNode;
import io.softcmi.vmmc.VmmcPid;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The manual's {@code spawn [level]}: spawns itself on the next session host with
 * {@code level - 1} until the level reaches 0; each child reports back to its parent with a
 * notification. Tests the spawn facility ({@code vmmc_Spawn}, {@code vmmc_Parent}).
 */
public final class Spawn {
    private Spawn() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code [level]}, default 1
     * @throws InterruptedException if interrupted while waiting for the child
     */
    public static void main(String[] args) throws InterruptedException {
        int level = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        try (Vmmc v = Vmmc.init()) {
            Semaphore done = new Semaphore(0);
            int[] childLevel = new int[1];
            MemorySegment buf = v.allocate(1);
            v.exportRecvBuf(buf, 1, Peers.DATA, (addr, value) -> {
                childLevel[0] = value;
                done.release();
            }, EnumSet.of(BufFlag.WRITE_ONLY), 0);
            Optional<ProcessId> parent = v.parent();
            System.out.println("spawn: level " + level + " on " + v.myHostName() + " pid " + v.myPid().value()
                + parent.map(p -> " parent " + p.node().name() + "." + p.pid().value()).orElse(" (no parent)"));
            if (level > 0) {
                List<VmmcNode> hosts = v.sessionHosts();
                VmmcNode next = hosts.get((hosts.indexOf(v.myNode()) + 1) % hosts.size());
                VmmcPid child = v.spawn(Spawn.class.getName(), new String[] {Integer.toString(level - 1)}, next);
                if (!done.tryAcquire(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("child " + next.name() + "." + child.value() + " did not report");
                }
                System.out.println("spawn: child " + next.name() + "." + child.value() + " at level " + childLevel[0] + " reported");
            }
            if (parent.isPresent()) {
                ImportHandle up = v.importRecvBuf(parent.get().node(), parent.get().pid(), Peers.DATA);
                MemorySegment w = v.allocate(1);
                w.set(ValueLayout.JAVA_INT, 0, level);
                v.sendDataNotify(w, up.proxyBuf(), 1);
            }
            System.out.println("spawn: level " + level + " done");
        }
    }
}
