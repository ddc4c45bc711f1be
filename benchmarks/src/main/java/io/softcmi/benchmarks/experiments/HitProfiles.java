package io.softcmi.benchmarks.experiments;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;

/**
 * Why a cached hit's checks stay in the re-read loop (docs/benchmarks.md, "Cached re-read: one
 * image per segment, and why the miss path keeps the checks in the loop"): the shapes of
 * {@link HitShapes} that keep a segment's lines in one image, each starting with no line present
 * so that the first pass takes the slow path once per 1 KiB line (as a real first read misses),
 * then timed as a re-read, best of 3,000 passes, beside the raw loop.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.softcmi.benchmarks.experiments.HitProfiles PASSES
 * </pre>
 * PASSES: for how many passes every line is made absent again before the pass (1: the first pass only).
 */
public final class HitProfiles {
    private HitProfiles() {
    }

    static final int MIB = 1 << 20, SHIFT = 10;
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    /** An epoch flag. */
    static final class Epoch { volatile boolean current = true; }
    static final VarHandle CUR;
    static { try { CUR = MethodHandles.lookup().findVarHandle(Epoch.class, "current", boolean.class); } catch (Exception e) { throw new Error(e); } }

    /** The tried build's hint: mutable fields. */
    static final class MHint { final Thread owner; Epoch epoch = new Epoch(); byte[] data = new byte[0]; long base; byte[] present = new byte[0]; int shift; MHint(Thread o) { owner = o; } }
    /** A hint of final fields. */
    static final class FHint { final Thread owner; final Epoch epoch; final byte[] data; final byte[] present; FHint(Thread o, Epoch e, byte[] d, byte[] p) { owner = o; epoch = e; data = d; present = p; } }
    /** A hint as a record (trusted final fields). */
    record RHint(Thread owner, Epoch epoch, byte[] data, byte[] present) { }

    /** A 1 MiB mapping with one image, in each hint shape. */
    static final class Mapping {
        final byte[] image = new byte[MIB];
        final byte[] present = new byte[MIB >>> SHIFT];
        final Epoch epoch = new Epoch();
        final MethodHandle slowA, slowB, slowC, slowR;
        MHint mh = new MHint(null);
        FHint fh = new FHint(null, new Epoch(), new byte[0], new byte[0]);
        RHint rh = new RHint(null, new Epoch(), new byte[0], new byte[0]);
        Thread owner;
        Mapping() throws Exception {
            var l = MethodHandles.lookup();
            var t = MethodType.methodType(long.class, long.class);
            slowA = l.findVirtual(Mapping.class, "slowA", t); slowB = l.findVirtual(Mapping.class, "slowB", t);
            slowC = l.findVirtual(Mapping.class, "slowC", t); slowR = l.findVirtual(Mapping.class, "slowR", t);
        }
        long fill(long off) { present[(int) (off >>> SHIFT)] = 1; return (long) LONGS.get(image, (int) off); }
        long slowA(long off) { MHint h = mh.owner == Thread.currentThread() ? mh : (mh = new MHint(Thread.currentThread())); h.data = image; h.present = present; h.base = 0; h.shift = SHIFT; h.epoch = epoch; return fill(off); }
        long slowB(long off) { if (fh.owner != Thread.currentThread() || fh.data != image) fh = new FHint(Thread.currentThread(), epoch, image, present); return fill(off); }
        long slowC(long off) { owner = Thread.currentThread(); return fill(off); }
        long slowR(long off) { if (rh.owner() != Thread.currentThread() || rh.data() != image) rh = new RHint(Thread.currentThread(), epoch, image, present); return fill(off); }
        static long call(MethodHandle m, Mapping x, long off) { try { return (long) m.invokeExact(x, off); } catch (Throwable t) { throw new IllegalStateException(t); } }

        long a(long off) {
            MHint h = mh;
            if (h.owner == Thread.currentThread() && (boolean) CUR.get(h.epoch)) {
                long rel = off - h.base;
                if (Long.compareUnsigned(rel, h.data.length - 8) <= 0 && ((rel ^ (rel + 7)) >>> h.shift) == 0 && h.present[(int) (rel >>> h.shift)] != 0) {
                    return (long) LONGS.get(h.data, (int) rel);
                }
            }
            return call(slowA, this, off);
        }
        long b(long off) {
            FHint h = fh;
            if (h.owner == Thread.currentThread() && (boolean) CUR.get(h.epoch) && Long.compareUnsigned(off, h.data.length - 8) <= 0
                    && h.present[(int) (off >>> SHIFT)] != 0) {
                return (long) LONGS.get(h.data, (int) off);
            }
            return call(slowB, this, off);
        }
        long r(long off) {
            RHint h = rh;
            if (h.owner() == Thread.currentThread() && (boolean) CUR.get(h.epoch()) && Long.compareUnsigned(off, h.data().length - 8) <= 0
                    && h.present()[(int) (off >>> SHIFT)] != 0) {
                return (long) LONGS.get(h.data(), (int) off);
            }
            return call(slowR, this, off);
        }
        long c(long off) {
            if (owner == Thread.currentThread() && Long.compareUnsigned(off, MIB - 8) <= 0 && present[(int) (off >>> SHIFT)] != 0) {
                return (long) LONGS.get(image, (int) off);
            }
            return call(slowC, this, off);
        }
    }
    static long sumA(Mapping m) { long s = 0; for (long o = 0; o < MIB; o += 8) s += m.a(o); return s; }
    static long sumB(Mapping m) { long s = 0; for (long o = 0; o < MIB; o += 8) s += m.b(o); return s; }
    static long sumR(Mapping m) { long s = 0; for (long o = 0; o < MIB; o += 8) s += m.r(o); return s; }
    static long sumC(Mapping m) { long s = 0; for (long o = 0; o < MIB; o += 8) s += m.c(o); return s; }
    static long sumRaw(MemorySegment g) { long s = 0; for (long o = 0; o < MIB; o += 8) s += g.get(ValueLayout.JAVA_LONG_UNALIGNED, o); return s; }

    /** One loop body. */
    interface Loop { long pass(); }
    /**
     * Entry point.
     *
     * @param args PASSES (see the class comment)
     * @throws Exception never
     */
    public static void main(String[] args) throws Exception {
        int polluteEvery = Integer.parseInt(args[0]); // clear present every pass for this many passes
        Mapping[] ms = {new Mapping(), new Mapping(), new Mapping(), new Mapping()};
        MemorySegment raw = Arena.global().allocate(MIB, 64);
        Loop[] loops = {() -> sumA(ms[0]), () -> sumB(ms[1]), () -> sumR(ms[2]), () -> sumC(ms[3]), () -> sumRaw(raw)};
        String[] names = {"mutable hint (the new shape)", "final-field hint", "record hint", "mapping fields", "raw"};
        double[] best = new double[loops.length];
        Arrays.fill(best, 1e9);
        long sink = 0;
        for (int pass = 0; pass < 3000; pass++) {
            if (pass < polluteEvery) for (Mapping m : ms) Arrays.fill(m.present, (byte) 0);
            for (int i = 0; i < loops.length; i++) {
                long t = System.nanoTime();
                sink += loops[i].pass();
                if (pass >= polluteEvery) best[i] = Math.min(best[i], (System.nanoTime() - t) / (MIB / 8.0));
            }
        }
        for (int i = 0; i < loops.length; i++) System.out.printf(Locale.ROOT, "%-30s %.3f ns, %.2fx raw%n", names[i], best[i], best[i] / best[loops.length - 1]);
        System.out.println(sink);
    }
}
