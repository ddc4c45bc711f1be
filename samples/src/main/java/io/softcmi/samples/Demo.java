package io.softcmi.samples;

import java.io.PrintStream;
import java.util.function.Consumer;

/**
 * {@code softcmi demo}: runs {@link SampleCode} and {@link SharedSegmentExchange} on the embedded
 * node (unless {@code SOFTCMI_NODE} names a running {@code cmid}), then {@link ThreeNodeCluster},
 * printing every step, then {@link SmiDemo}: {@code smirun -np 4} of an SMI sample across two
 * daemons, and last {@link VmmcDemo}: a VMMC exchange between two processes on two daemons.
 */
public final class Demo {
    private Demo() {
    }

    /**
     * Runs the steps in order; each runs even if an earlier one fails.
     *
     * @param out where to print
     * @return whether all succeeded
     */
    public static boolean run(PrintStream out) {
        String node = System.getenv("SOFTCMI_NODE");
        out.println("softcmi demo on " + (node == null || node.isBlank()
            ? "the embedded node (no SOFTCMI_NODE set: the node runs inside this JVM)"
            : "the cmid at " + node));
        out.println();
        boolean ok = step(out, "1/5  the Sample Code of cmi(7): init, seg_get 32 MiB LOCK, seg_at, attr_get, seg_exp",
            o -> SampleCode.run(o));
        ok &= step(out, "2/5  two processes exchange data through one shared segment",
            o -> SharedSegmentExchange.run(o));
        ok &= step(out, "3/5  a three-node cluster on loopback: export, import, tokens, revocation, cross-node atm_cas",
            o -> {
                long total = ThreeNodeCluster.run(o);
                if (total != 3L * 2_000) {
                    throw new IllegalStateException("counter is " + total + ", expected " + 3 * 2_000);
                }
            });
        ok &= step(out, "4/5  SMI: smirun -np 4 over two daemons (pseudo-hosts local:a, local:b) running the helloworld test",
            SmiDemo::run);
        ok &= step(out, "5/5  VMMC: two daemons (hosts n1, n2); a receive buffer exported on n1, imported by a peer spawned on n2,"
            + " SendData and SendDataNotify into it, the handler runs, a notified reply", VmmcDemo::run);
        out.println(ok ? "demo OK" : "demo FAILED");
        return ok;
    }

    private static boolean step(PrintStream out, String title, Consumer<PrintStream> sample) {
        out.println("== " + title);
        try {
            sample.accept(out);
            out.println("-- ok");
            out.println();
            return true;
        } catch (RuntimeException e) {
            out.println("-- FAILED: " + e);
            out.println();
            return false;
        }
    }

    /**
     * Runs the demo from the command line; exits with status 1 if a sample fails.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        boolean ok = run(System.out);
        System.out.flush();
        if (!ok) {
            System.exit(1);
        }
    }
}
