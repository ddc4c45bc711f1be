package io.softcmi.samples;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A VMMC program in two processes, run by the demo ({@link VmmcDemo}): the master exports a
 * receive buffer with a notification handler and spawns itself ({@code vmmc_Spawn}) on the
 * second session host; the peer exports its own buffer, imports the master's, sends
 * {@value #WORDS} words into it (the first half with {@code SendData}, the rest with
 * {@code SendDataNotify}); the master's handler runs once the whole message is in its buffer, the
 * master checks every word and answers with the checksum by {@code SendDataNotify} into the
 * peer's buffer. The peer's output goes to its log {@code VMMCOUTDIR/VMMC_<host>.<pid>}.
 *
 * <p>Run as {@code VmmcExchange} (master) with the session's settings in the environment
 * (docs/vmmc.md, "Running"); the master passes {@code peer} to the process it spawns.
 */
public final class VmmcExchange {
    /** Words the peer sends. */
    static final int WORDS = 16_384;
    /** rbufid of each process's receive buffer. */
    static final int RBUF = 1;
    private static final long WAIT_SECONDS = 30;

    private VmmcExchange() {
    }

    /**
     * Runs the master, or the peer if the first argument is {@code peer}.
     *
     * @param args nothing, or {@code peer}
     */
    public static void main(String[] args) {
        boolean peer = args.length > 0 && args[0].equals("peer");
        try (Vmmc v = Vmmc.init()) {
            if (peer) {
                peer(v);
            } else {
                master(v);
            }
        }
    }

    /** What a handler saw: the address and value of the message's last word. */
    private static final class Arrival {
        final CountDownLatch done = new CountDownLatch(1);
        volatile long address;
        volatile int value;

        void await(String what) {
            try {
                if (!done.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no notification for " + what + " in " + WAIT_SECONDS + " s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    private static MemorySegment export(Vmmc v, Arrival arrival, long nwords) {
        MemorySegment buf = v.allocate(nwords);
        v.exportRecvBuf(buf, nwords, RBUF, (address, value) -> {
            arrival.address = address;
            arrival.value = value;
            arrival.done.countDown();
        }, EnumSet.of(BufFlag.READWRITE), 0);
        return buf;
    }

    private static int word(int i) {
        return i * 7 + 1;
    }

    private static int checksum(MemorySegment words, int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum = sum * 31 + words.getAtIndex(ValueLayout.JAVA_INT, i);
        }
        return sum;
    }

    private static void master(Vmmc v) {
        List<VmmcNode> hosts = v.sessionHosts();
        if (hosts.size() < 2) {
            throw new IllegalStateException("VMMCHOSTS must name two hosts, not " + hosts);
        }
        String me = v.myHostName() + "." + v.myPid().value();
        Arrival arrival = new Arrival();
        MemorySegment buf = export(v, arrival, WORDS);
        System.out.println("master " + me + ": exported receive buffer " + RBUF + " (" + WORDS + " words) with a handler");
        VmmcNode other = hosts.get(1).equals(v.myNode()) ? hosts.get(0) : hosts.get(1);
        VmmcPid pid = v.spawn(VmmcExchange.class.getName(), new String[] {"peer"}, other);
        System.out.println("master " + me + ": spawned the peer on " + v.nodeToName(other) + " as pid " + pid.value());
        ImportHandle reply = v.importRecvBuf(other, pid, RBUF);
        arrival.await("the peer's message");
        long index = (arrival.address - buf.address()) / Vmmc.WORD;
        System.out.println("master " + me + ": handler ran: last word at buffer index " + index + ", value " + arrival.value);
        for (int i = 0; i < WORDS; i++) {
            int w = buf.getAtIndex(ValueLayout.JAVA_INT, i);
            if (w != word(i)) {
                throw new IllegalStateException("word " + i + " is " + w + ", expected " + word(i));
            }
        }
        if (index != WORDS - 1 || arrival.value != word(WORDS - 1)) {
            throw new IllegalStateException("the handler saw word " + index + " = " + arrival.value);
        }
        MemorySegment sum = v.allocate(1);
        sum.setAtIndex(ValueLayout.JAVA_INT, 0, checksum(buf, WORDS));
        v.sendDataNotify(sum, reply.proxyBuf(), 1);
        System.out.println("master " + me + ": all " + WORDS + " words arrived in order; SendDataNotify of the checksum "
            + Integer.toHexString(sum.getAtIndex(ValueLayout.JAVA_INT, 0)) + " to the peer");
    }

    private static void peer(Vmmc v) {
        ProcessId master = v.parent().orElseThrow(() -> new IllegalStateException("the peer must be spawned"));
        String me = v.myHostName() + "." + v.myPid().value();
        Arrival arrival = new Arrival();
        MemorySegment buf = export(v, arrival, 1);
        ImportHandle imp = v.importRecvBuf(master.node(), master.pid(), RBUF);
        System.out.println("peer " + me + ": imported buffer " + RBUF + " of " + v.nodeToName(master.node()) + "."
            + master.pid().value() + " at proxy address 0x" + Long.toHexString(imp.proxyBuf()));
        MemorySegment src = v.allocate(WORDS);
        for (int i = 0; i < WORDS; i++) {
            src.setAtIndex(ValueLayout.JAVA_INT, i, word(i));
        }
        int half = WORDS / 2;
        v.sendData(src, imp.proxyBuf(), half);
        v.sendDataNotify(src.asSlice((long) half * Vmmc.WORD), imp.proxyBuf() + (long) half * Vmmc.WORD, WORDS - half);
        System.out.println("peer " + me + ": SendData of words 0.." + (half - 1) + ", SendDataNotify of words " + half + ".."
            + (WORDS - 1));
        arrival.await("the master's reply");
        int expected = checksum(src, WORDS);
        int got = buf.getAtIndex(ValueLayout.JAVA_INT, 0);
        if (got != expected) {
            throw new IllegalStateException("checksum " + Integer.toHexString(got) + ", expected " + Integer.toHexString(expected));
        }
        System.out.println("peer " + me + ": the master's checksum " + Integer.toHexString(got) + " matches: exchange OK");
    }
}
