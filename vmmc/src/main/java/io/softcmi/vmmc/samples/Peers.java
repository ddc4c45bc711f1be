package io.softcmi.vmmc.samples;

import io.softcmi.vmmc.BufFlag;
import io.softcmi.vmmc.ExportHandle;
import io.softcmi.vmmc.ImportHandle;
import io.softcmi.vmmc.ProcessId;
import io.softcmi.vmmc.Vmmc;
import io.softcmi.vmmc.VmmcException;
import io.softcmi.vmmc.VmmcNode;
import io.softcmi.vmmc.VmmcPid;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What the samples share: a master that spawns its peers with {@code vmmc_Spawn} on the next
 * hosts of {@code vmmc_SessionHosts}, and in every process a data buffer (rbufid 1) whose
 * notifications are counted for {@link #await}. Buffer layout of the samples: the data buffer holds
 * {@code nwords} words per process of the run. The data buffer is {@link Vmmc#allocate}'s memory
 * (it receives in place), or with {@code -Dvmmc.samples.copiedBuffers=true} ordinary memory (every
 * message copied into it by the receiver; for benchmarks).
 */
public final class Peers {
    /** The rbufid of every process's data buffer. */
    public static final int DATA = 1;

    final Vmmc vmmc;
    final int rank;
    final List<ProcessId> procs;
    final MemorySegment buf;
    final ExportHandle export;
    /** Notifications arrived in this process's data buffer (counted by the handler). */
    private final AtomicLong arrived = new AtomicLong();
    /** The count {@link #await} waits for; {@link Long#MAX_VALUE} while nobody waits. */
    private volatile long wanted = Long.MAX_VALUE;
    /** The thread in {@link #await}, or null. */
    private volatile Thread waiter;
    /** Arrivals the earlier waits took (waiting thread only). */
    private long taken;
    /** Run by the data buffer's handler before it counts the arrival, if set (a sample's answer from the handler). */
    volatile Runnable onArrival;
    final List<ImportHandle> imports = new ArrayList<>();

    private Peers(Vmmc vmmc, int rank, List<ProcessId> procs, long nwords) {
        this.vmmc = vmmc;
        this.rank = rank;
        this.procs = procs;
        // -Dvmmc.samples.copiedBuffers=true: a buffer the receiver copies each message into (docs/vmmc.md)
        this.buf = Boolean.getBoolean("vmmc.samples.copiedBuffers") ? Arena.ofAuto().allocate(nwords * Vmmc.WORD, Vmmc.PAGE)
            : vmmc.allocate(nwords);
        this.export = vmmc.exportRecvBuf(buf, nwords, DATA, (addr, value) -> {
            Runnable r = onArrival;
            if (r != null) {
                r.run();
            }
            // Wakes the waiting thread only when its count is reached, not once per message:
            // a wake-up per message would take a core from the exchange itself.
            if (arrived.incrementAndGet() >= wanted) {
                LockSupport.unpark(waiter);
            }
        },
            EnumSet.of(BufFlag.READWRITE), 0);
    }

    /**
     * The master's side: spawns {@code count - 1} peers running {@code mainClass} with {@code args}
     * followed by {@code --peer RANK PIDS...}, exports its buffer and imports every peer's.
     */
    static Peers master(Vmmc v, int count, Class<?> mainClass, String[] args, long nwords) {
        List<VmmcNode> hosts = v.sessionHosts();
        if (hosts.size() < 2 && count > 1) {
            throw new IllegalArgumentException("VMMCHOSTS names fewer than 2 hosts");
        }
        List<ProcessId> procs = new ArrayList<>();
        procs.add(new ProcessId(v.myNode(), v.myPid()));
        int myIndex = hosts.indexOf(v.myNode());
        for (int r = 1; r < count; r++) {
            procs.add(new ProcessId(hosts.get((myIndex + r) % hosts.size()), null));
        }
        Peers p = new Peers(v, 0, procs, nwords);
        for (int r = 1; r < count; r++) {
            List<String> a = new ArrayList<>(List.of(args));
            a.add("--peer");
            a.add(Integer.toString(r));
            VmmcPid pid = v.spawn(mainClass.getName(), a.toArray(String[]::new), procs.get(r).node());
            procs.set(r, new ProcessId(procs.get(r).node(), pid));
        }
        p.importAll();
        return p;
    }

    /** A peer's side: learns the others' pids from the master's directory, imports every buffer. */
    static Peers peer(Vmmc v, int rank, int count, long nwords) {
        ProcessId master = v.parent().orElseThrow(() -> new IllegalStateException("a peer must be spawned"));
        List<VmmcNode> hosts = v.sessionHosts();
        int mi = hosts.indexOf(hosts.stream().filter(h -> h.name().equals(master.node().name())).findFirst().orElseThrow());
        List<ProcessId> procs = new ArrayList<>();
        procs.add(master);
        for (int r = 1; r < count; r++) {
            procs.add(r == rank ? new ProcessId(v.myNode(), v.myPid()) : null);
        }
        Peers p = new Peers(v, rank, procs, nwords);
        // The master exports its control buffer (rbufid 2) holding the pids once all are spawned.
        ImportHandle ctl = v.importRecvBuf(master.node(), master.pid(), 2);
        MemorySegment pids = v.allocate(count);
        for (int tries = 0; ; tries++) {
            v.getData(pids, ctl.proxyBuf(), count);
            boolean all = true;
            for (int r = 1; r < count; r++) {
                all &= pids.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, r) != 0;
            }
            if (all) {
                break;
            }
            if (tries > 60_000) {
                throw new IllegalStateException("the master did not publish the pids");
            }
            sleep(1);
        }
        for (int r = 1; r < count; r++) {
            procs.set(r, new ProcessId(hosts.get((mi + r) % hosts.size()),
                new VmmcPid(pids.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, r))));
        }
        p.importAll();
        return p;
    }

    /** The master publishes the peers' pids in its control buffer (rbufid 2). */
    void publishPids() {
        MemorySegment ctl = vmmc.allocate(procs.size());
        for (int r = 0; r < procs.size(); r++) {
            ctl.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, r, procs.get(r).pid().value());
        }
        vmmc.exportRecvBuf(ctl, procs.size(), 2, null, EnumSet.of(BufFlag.READ_ONLY), 0);
    }

    private void importAll() {
        if (rank == 0) {
            publishPids();
        }
        for (int r = 0; r < procs.size(); r++) {
            imports.add(r == rank ? null : vmmc.importRecvBuf(procs.get(r).node(), procs.get(r).pid(), DATA));
        }
    }

    /** Waits for {@code n} notifications in this process's data buffer. */
    void await(int n) {
        long target = taken + n;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        waiter = Thread.currentThread();
        wanted = target; // then re-read the count: the handler either sees this or we see its count
        try {
            while (arrived.get() < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new VmmcException(io.softcmi.vmmc.VmmcResult.IN_PROGRESS, "timed out waiting for " + n + " notifications");
                }
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for notifications");
                }
                LockSupport.parkNanos(this, left);
            }
        } finally {
            wanted = Long.MAX_VALUE;
            waiter = null;
        }
        taken = target;
    }

    /** @param r a rank @return the DestSpace address of rank r's data buffer */
    long proxy(int r) {
        return imports.get(r).proxyBuf();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @param args a sample's arguments @return the index of {@code --peer}, or -1 for the master */
    static int peerIndex(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--peer")) {
                return i;
            }
        }
        return -1;
    }
}
