package io.softcmi.smi.run;

import io.softcmi.smi.ProgressCounter;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiException;
import io.softcmi.smi.SmiMutex;
import io.softcmi.smi.SmiRegion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A test program for two ranks: rank 0 waits on rank 1 while rank 1 leaves. Rank 1 first does
 * what the mode gives rank 0 to consume before the barrier ({@code signal}, {@code signalAny}: one
 * signal to rank 0; {@code mutex}: locks the mutex; {@code pc}: increments the progress counter to
 * 1; {@code pt2ptFree}: creates two PT2PT regions with rank 0), meets rank 0 at a barrier, sleeps
 * half a second (rank 0 blocks in its wait meanwhile), then does what the mode gives rank 0 while
 * it blocks ({@code recv}, {@code sendrecv}: sends rank 0 a message; {@code send},
 * {@code sendWait}: reads rank 0's message; {@code pt2ptOwner}, {@code pt2ptPartner}: creates a
 * PT2PT region with rank 0, as partner or as owner; {@code pt2ptFree}: frees the first region),
 * then calls {@code SMI_Finalize} ({@code kill}: kills itself with SIGKILL instead). Rank 0
 * consumes what rank 1 gave, then waits for more: a signal from rank 1 or from any rank, the
 * mutex, the counter at 2, a signal callback ({@code callback}), a second message, the read of a
 * second message (sent with {@code send}, or {@code isend} then {@code sendWait}), the read of its
 * message in {@code sendrecv}, a second PT2PT rendezvous (creation as owner or partner, the free of
 * the second region). It prints {@code rank 0: MODE wait gave CODE after N ms} when the wait
 * fails, {@code ... wait returned} when it returns, then finalizes.
 */
public final class PartnerGoneRank {
    private static final byte[] MESSAGE = "m1".getBytes(StandardCharsets.US_ASCII);

    private PartnerGoneRank() {
    }

    /**
     * @param args {@code signal}, {@code signalAny}, {@code callback}, {@code mutex}, {@code pc},
     *     {@code recv}, {@code send}, {@code sendWait}, {@code sendrecv}, {@code pt2ptOwner},
     *     {@code pt2ptPartner}, {@code pt2ptFree} or {@code kill}
     * @throws Exception if the kill fails
     */
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Smi smi = Smi.init(args);
        SmiMutex mutex = smi.mutexInit();
        ProgressCounter pc = smi.initPc();
        SmiRegion[] pair = mode.equals("pt2ptFree") ? new SmiRegion[] {pt2pt(smi, 0), pt2pt(smi, 0)} : null;
        if (smi.procRank() == 1) {
            switch (mode) {
                case "signal", "signalAny" -> smi.signalSend(0);
                case "mutex" -> mutex.lock();
                case "pc" -> pc.increment(1);
                default -> { }
            }
            smi.barrier();
            Thread.sleep(500);
            switch (mode) {
                case "recv", "sendrecv" -> smi.isend(MESSAGE, MESSAGE.length, 0);
                case "send", "sendWait" -> smi.recv(new byte[MESSAGE.length], MESSAGE.length, 0);
                case "pt2ptOwner" -> pt2pt(smi, 0);
                case "pt2ptPartner" -> pt2pt(smi, 1);
                case "pt2ptFree" -> pair[0].free();
                case "kill" -> killMyself();
                default -> { }
            }
            smi.close();
            System.out.println("rank 1 finalized");
            return;
        }
        smi.barrier();
        long t0 = System.nanoTime();
        try {
            rank0(smi, mode, mutex, pc, pair);
            System.out.println("rank 0: " + mode + " wait returned");
        } catch (SmiException e) {
            System.out.println("rank 0: " + mode + " wait gave " + e.error() + " after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
        }
        System.out.flush();
        smi.close();
    }

    /** Rank 0's waits after the barrier: the first (if any) ends by what rank 1 does, the last never. */
    private static void rank0(Smi smi, String mode, SmiMutex mutex, ProgressCounter pc, SmiRegion[] pair) {
        byte[] buf = new byte[MESSAGE.length];
        switch (mode) {
            case "signal", "kill" -> {
                if (mode.equals("signal")) {
                    smi.signalWait(1);
                    System.out.println("rank 0: the signal sent before SMI_Finalize arrived");
                }
                smi.signalWait(1);
            }
            case "signalAny" -> {
                smi.signalWait(Smi.SIGNAL_ANY);
                System.out.println("rank 0: the signal sent before SMI_Finalize arrived");
                smi.signalWait(Smi.SIGNAL_ANY);
            }
            case "callback" -> smi.signalJoinCallback(
                smi.signalSetCallback(1, () -> System.out.println("rank 0: callback ran")));
            case "mutex" -> mutex.lock();
            case "pc" -> {
                pc.waitIndividual(1, 1);
                System.out.println("rank 0: the counter reached 1");
                pc.waitIndividual(1, 2);
            }
            case "recv" -> {
                smi.recv(buf, buf.length, 1);
                messageArrived(buf);
                smi.recv(buf, buf.length, 1);
            }
            case "sendrecv" -> {
                try {
                    smi.sendrecv(MESSAGE, buf, buf.length, 1);
                } finally {
                    messageArrived(buf);
                }
            }
            case "send" -> {
                smi.send(MESSAGE, MESSAGE.length, 1);
                System.out.println("rank 0: the message was read before SMI_Finalize");
                smi.send(MESSAGE, MESSAGE.length, 1);
            }
            case "sendWait" -> {
                smi.isend(MESSAGE, MESSAGE.length, 1);
                smi.sendWait(1);
                System.out.println("rank 0: the message was read before SMI_Finalize");
                smi.isend(MESSAGE, MESSAGE.length, 1);
                smi.sendWait(1);
            }
            case "pt2ptOwner", "pt2ptPartner" -> {
                int owner = mode.equals("pt2ptOwner") ? 0 : 1;
                pt2pt(smi, owner);
                System.out.println("rank 0: the rendezvous before SMI_Finalize completed");
                pt2pt(smi, owner);
            }
            case "pt2ptFree" -> {
                pair[0].free();
                System.out.println("rank 0: the free before SMI_Finalize completed");
                pair[1].free();
            }
            default -> throw new IllegalArgumentException(mode);
        }
    }

    private static void messageArrived(byte[] buf) {
        if (Arrays.equals(buf, MESSAGE)) {
            System.out.println("rank 0: the message sent before SMI_Finalize arrived");
        }
    }

    /** Creates a one-page PT2PT region of ranks 0 and 1 with {@code owner} as its owner. */
    private static SmiRegion pt2pt(Smi smi, int owner) {
        return smi.createShreg(RegionType.PT2PT, Smi.initReginfo(smi.pageSize(), owner).partner(1 - owner), Set.of());
    }

    private static void killMyself() throws IOException, InterruptedException {
        System.out.println("rank 1 kills itself");
        System.out.flush();
        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).inheritIO().start()
            .waitFor(10, TimeUnit.SECONDS);
        Thread.sleep(10_000);
        throw new IllegalStateException("rank 1 outlived its SIGKILL");
    }
}
