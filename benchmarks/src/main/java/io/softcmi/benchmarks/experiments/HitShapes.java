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
 * What a cached hit's checks cost, outside softcmi (docs/benchmarks.md, "Cached re-read: what a
 * hit's checks cost"): loops over 1 MiB of {@code getLong}-shaped methods, each with its slow
 * path behind a {@code MethodHandle} call as in {@code RemoteMapping}, against the raw loop over a
 * native segment, best of 3,000 passes each in one JVM:
 * <ul>
 *   <li>{@code hinted}: softcmi's layout, a per-thread hint (owner, an epoch with a {@code volatile}
 *       flag, the line's {@code byte[]}, its base);</li>
 *   <li>{@code imaged volatile}: one contiguous image and a present byte per line, fields of the
 *       mapping, behind a {@code volatile} flag;</li>
 *   <li>{@code imaged plain}: the same behind a plain flag;</li>
 *   <li>{@code imaged constant}: the {@code volatile} flag, image and present array {@code static final};</li>
 *   <li>added 2026-11-29 evening ("Cached re-read: one image per segment, and why the miss path keeps
 *       the checks in the loop"): a per-thread hint over the whole table of line arrays ({@code tabled},
 *       its epoch read plainly or as {@code volatile}), and a heap {@code byte[]} image with a present
 *       byte per line behind such a hint ({@code heap image}, with the data or the epoch read
 *       {@code opaque}).</li>
 * </ul>
 * Every shape here but the hint layout takes its slow path at most once, so the JIT makes it a
 * trap and hoists the checks out of the loop; {@link HitProfiles} times the image shapes with the
 * slow path in the profile, as a real first read puts it there.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar io.softcmi.benchmarks.experiments.HitShapes
 * </pre>
 */
public final class HitShapes {
    private static final int MIB = 1 << 20;
    private static final int LINE_SHIFT = 10;
    private static final VarHandle OPAQUE_LONGS = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final MemorySegment CONSTANT_IMAGE = Arena.global().allocate(MIB, 64);
    private static final byte[] CONSTANT_PRESENT = new byte[MIB >>> LINE_SHIFT];

    private HitShapes() {
    }

    /** An epoch as the hint layout has it. */
    static final class Epoch {
        volatile boolean current = true;
    }

    private static final VarHandle CURRENT;
    static {
        try {
            CURRENT = MethodHandles.lookup().findVarHandle(Epoch.class, "current", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A thread's hint over the whole table: its owner, the epoch, the table of line arrays. */
    static final class TableHint {
        final Thread owner;
        final Epoch epoch;
        final byte[][] lines;

        TableHint(Thread owner, Epoch epoch, byte[][] lines) {
            this.owner = owner;
            this.epoch = epoch;
            this.lines = lines;
        }
    }

    /** One thread's hint: the line it read last. */
    static final class Hint {
        final Thread owner;
        Epoch epoch = new Epoch();
        byte[] data = new byte[0];
        long base;

        Hint(Thread owner) {
            this.owner = owner;
        }
    }

    /** A mapping of 1 MiB, fully cached, in both layouts. */
    static final class Mapping {
        private final MethodHandle slow;
        private final MethodHandle tableSlowHandle;
        private final MethodHandle imageSlowHandle;
        private final Epoch epoch = new Epoch();
        private final byte[][] lines = new byte[MIB >>> LINE_SHIFT][1 << LINE_SHIFT];
        private final MemorySegment image = Arena.global().allocate(MIB, 64);
        private final byte[] present = new byte[MIB >>> LINE_SHIFT];
        private volatile int volatileFlag = 1;
        private int plainFlag = 1;
        private Hint hint = new Hint(null);
        private TableHint tableHint = new TableHint(null, new Epoch(), new byte[0][]);

        Mapping() throws ReflectiveOperationException {
            slow = MethodHandles.lookup().findVirtual(Mapping.class, "slow", MethodType.methodType(long.class, long.class));
            imageSlowHandle = MethodHandles.lookup().findVirtual(Mapping.class, "imageSlow", MethodType.methodType(long.class, long.class));
            tableSlowHandle = MethodHandles.lookup().findVirtual(Mapping.class, "tableSlow", MethodType.methodType(long.class, long.class));
            Arrays.fill(present, (byte) 1);
            Arrays.fill(CONSTANT_PRESENT, (byte) 1);
        }

        private long slow(long off) {
            Hint h = hint.owner == Thread.currentThread() ? hint : new Hint(Thread.currentThread());
            h.epoch = epoch;
            h.data = lines[(int) (off >>> LINE_SHIFT)];
            h.base = off & -(1L << LINE_SHIFT);
            hint = h;
            return (long) LONGS.get(h.data, (int) (off - h.base));
        }

        private long slowPath(long off) {
            return call(slow, off);
        }

        /** A slow path through its handle, which the JIT does not inline into the hit. */
        private long call(MethodHandle path, long off) {
            try {
                return (long) path.invokeExact(this, off);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        long hinted(long off) {
            Hint h = hint;
            if (h.owner == Thread.currentThread() && h.epoch.current
                    && Long.compareUnsigned(off - h.base, h.data.length - 8) <= 0) {
                return (long) LONGS.get(h.data, (int) (off - h.base));
            }
            return slowPath(off);
        }

        private long tableSlow(long off) {
            tableHint = new TableHint(Thread.currentThread(), epoch, lines);
            return (long) LONGS.get(lines[(int) (off >>> LINE_SHIFT)], (int) off & ((1 << LINE_SHIFT) - 1));
        }

        long tabledPlain(long off) {
            TableHint h = tableHint;
            if (h.owner == Thread.currentThread() && (boolean) CURRENT.get(h.epoch)
                    && Long.compareUnsigned(off, MIB - 8) <= 0) {
                byte[] d = h.lines[(int) (off >>> LINE_SHIFT)];
                int at = (int) off & ((1 << LINE_SHIFT) - 1);
                if (d != null && at <= d.length - 8) {
                    return (long) LONGS.get(d, at);
                }
            }
            return call(tableSlowHandle, off);
        }


        private final byte[] heapImage = new byte[MIB];

        /** A thread's hint over a heap image. */
        static final class ImageHint {
            final Thread owner;
            final Epoch epoch;
            final byte[] image;
            final byte[] present;
            final MemorySegment segment;

            ImageHint(Thread owner, Epoch epoch, byte[] image, byte[] present) {
                this.owner = owner;
                this.epoch = epoch;
                this.image = image;
                this.present = present;
                this.segment = MemorySegment.ofArray(new long[Math.max(1, image.length / 8)]);
            }
        }

        private ImageHint imageHint = new ImageHint(null, new Epoch(), new byte[0], new byte[0]);

        private long imageSlow(long off) {
            imageHint = new ImageHint(Thread.currentThread(), epoch, heapImage, present);
            return (long) LONGS.get(heapImage, (int) off);
        }

        long heapImagedHint(long off) {
            ImageHint h = imageHint;
            if (h.owner == Thread.currentThread() && (boolean) CURRENT.get(h.epoch)
                    && Long.compareUnsigned(off, MIB - 8) <= 0 && h.present[(int) (off >>> LINE_SHIFT)] != 0) {
                return (long) LONGS.get(h.image, (int) off);
            }
            return call(imageSlowHandle, off);
        }

        long heapImagedOpaque(long off) {
            ImageHint h = imageHint;
            if (h.owner == Thread.currentThread() && (boolean) CURRENT.get(h.epoch)
                    && Long.compareUnsigned(off, MIB - 8) <= 0 && h.present[(int) (off >>> LINE_SHIFT)] != 0) {
                return (long) OPAQUE_LONGS.getOpaque(h.segment, off);
            }
            return call(imageSlowHandle, off);
        }

        long heapImagedOpaqueEpoch(long off) {
            ImageHint h = imageHint;
            if (h.owner == Thread.currentThread() && (boolean) CURRENT.getOpaque(h.epoch)
                    && Long.compareUnsigned(off, MIB - 8) <= 0 && h.present[(int) (off >>> LINE_SHIFT)] != 0) {
                return (long) LONGS.get(h.image, (int) off);
            }
            return call(imageSlowHandle, off);
        }

        long tabledVolatile(long off) {
            TableHint h = tableHint;
            if (h.owner == Thread.currentThread() && h.epoch.current
                    && Long.compareUnsigned(off, MIB - 8) <= 0) {
                byte[] d = h.lines[(int) (off >>> LINE_SHIFT)];
                int at = (int) off & ((1 << LINE_SHIFT) - 1);
                if (d != null && at <= d.length - 8) {
                    return (long) LONGS.get(d, at);
                }
            }
            return call(tableSlowHandle, off);
        }

        long imagedVolatile(long off) {
            if (volatileFlag != 0 && present[(int) (off >>> LINE_SHIFT)] != 0) {
                return image.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            }
            return slowPath(off);
        }

        long imagedPlain(long off) {
            if (plainFlag != 0 && present[(int) (off >>> LINE_SHIFT)] != 0) {
                return image.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            }
            return slowPath(off);
        }

        long imagedConstant(long off) {
            if (volatileFlag != 0 && CONSTANT_PRESENT[(int) (off >>> LINE_SHIFT)] != 0) {
                return CONSTANT_IMAGE.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            }
            return slowPath(off);
        }
    }

    /** One loop body. */
    private interface Loop {
        long pass();
    }

    // One method per loop body, not one loop over a lambda: each is compiled on its own, as
    // CacheBenchmark's own-method loops are, so that no loop's profile changes another's code.
    private static long sumHinted(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.hinted(off);
        }
        return s;
    }

    private static long sumTabledPlain(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.tabledPlain(off);
        }
        return s;
    }

    private static long sumTabledVolatile(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.tabledVolatile(off);
        }
        return s;
    }


    private static long sumHeapImageHint(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.heapImagedHint(off);
        }
        return s;
    }

    private static long sumHeapImageOpaque(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.heapImagedOpaque(off);
        }
        return s;
    }

    private static long sumHeapImageOpaqueEpoch(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.heapImagedOpaqueEpoch(off);
        }
        return s;
    }

    private static long sumVolatile(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.imagedVolatile(off);
        }
        return s;
    }

    private static long sumPlain(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.imagedPlain(off);
        }
        return s;
    }

    private static long sumConstant(Mapping m) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += m.imagedConstant(off);
        }
        return s;
    }

    private static long sumRaw(MemorySegment image) {
        long s = 0;
        for (long off = 0; off < MIB; off += 8) {
            s += image.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        }
        return s;
    }

    /**
     * Entry point.
     *
     * @param args none
     * @throws ReflectiveOperationException never
     */
    public static void main(String[] args) throws ReflectiveOperationException {
        Mapping m = new Mapping();
        MemorySegment raw = Arena.global().allocate(MIB, 64);
        Loop[] loops = {() -> sumHinted(m), () -> sumTabledPlain(m), () -> sumTabledVolatile(m), () -> sumHeapImageHint(m), () -> sumHeapImageOpaque(m), () -> sumHeapImageOpaqueEpoch(m), () -> sumVolatile(m), () -> sumPlain(m), () -> sumConstant(m), () -> sumRaw(raw)};
        String[] names = {"hinted (softcmi's layout)", "tabled, plain epoch", "tabled, volatile epoch", "heap image, hinted", "heap image, opaque data", "heap image, opaque epoch", "imaged, volatile flag", "imaged, plain flag", "imaged, constants", "raw"};
        double[] best = new double[loops.length];
        Arrays.fill(best, Double.MAX_VALUE);
        long sink = 0;
        for (int pass = 0; pass < 3000; pass++) {
            for (int i = 0; i < loops.length; i++) {
                long t = System.nanoTime();
                sink += loops[i].pass();
                best[i] = Math.min(best[i], (System.nanoTime() - t) / (MIB / 8.0));
            }
        }
        for (int i = 0; i < loops.length; i++) {
            System.out.printf(Locale.ROOT, "%-28s %.3f ns per getLong, %.2fx raw%n", names[i], best[i],
                best[i] / best[loops.length - 1]);
        }
        System.out.println(sink == 42 ? "" : "(checksum " + (sink & 0xff) + ")");
    }
}
