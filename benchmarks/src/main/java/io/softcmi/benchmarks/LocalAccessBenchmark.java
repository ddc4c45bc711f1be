package io.softcmi.benchmarks;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.SegFlag;
import io.softcmi.node.EmbeddedNode;
import io.softcmi.wire.SegmentFileLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Loads, stores and compare-and-swap on a local segment: through {@link CmiMapping} and
 * {@link CmiContext#atmCas} against a raw FFM {@link MemorySegment} mapping of the same segment
 * file, in the same JVM (DESIGN.md, "Performance, the yardsticks"; targets: get/put within 1.5x
 * of raw, CAS within 1.3x).
 *
 * <p>Both sides walk the same 64 eight-byte slots in the same order, so the JIT can neither hoist
 * the access out of the loop nor fold the offset into a constant, and both map the file with a
 * shared arena, as the library does: the difference is exactly what the CMI layer adds.
 *
 * <p>The state is per thread and set up in the benchmark thread, so {@code Cmi.init} associates
 * that thread with the context (CMI binds contexts to threads).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// FFM and the node's native calls; JMH itself still uses sun.misc.Unsafe.
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class LocalAccessBenchmark {
    /** Size of the benchmark's segment: 1 MiB. */
    private static final long SEGMENT_SIZE = 1 << 20;
    /** Slots visited in turn (a power of two). */
    private static final int SLOTS = 64;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final VarHandle ATOMIC_LONG = ValueLayout.JAVA_LONG.varHandle();

    private CmiContext context;
    private CmiSegment segment;
    private CmiMapping mapping;
    private Arena rawArena;
    private MemorySegment raw;
    private int slot;
    private long value;
    /** What each slot holds, so every CAS succeeds (a failing CAS would measure something else). */
    private final long[] expected = new long[SLOTS];

    /**
     * Opens a context in the benchmark thread, makes and attaches a 1 MiB segment, and maps the
     * same segment file a second time with plain FFM.
     *
     * @throws IOException if the segment file cannot be mapped
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        context = Cmi.init(Cmi.LIBRARY_VERSION);
        segment = context.segGet(SEGMENT_SIZE, EnumSet.noneOf(SegFlag.class));
        mapping = context.segAt(segment, Set.of());
        context.enable(true);
        // The embedded node is the one Cmi.init just started in this JVM.
        Path file = EmbeddedNode.start().config().shmDirectory().resolve("seg-" + segment.id());
        rawArena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            raw = ch.map(FileChannel.MapMode.READ_WRITE, SegmentFileLayout.HEADER_SIZE, SEGMENT_SIZE, rawArena);
        }
        // Prove both views are one memory before measuring anything.
        mapping.putLong(8, 0x5EED_CAFEL);
        if (raw.get(LONG, 8) != 0x5EED_CAFEL) {
            throw new IllegalStateException("raw mapping of " + file + " does not alias the CMI mapping");
        }
        mapping.putLong(8, 0);
    }

    /** Unmaps the raw view, detaches, removes the segment and ends the context. */
    @TearDown(Level.Trial)
    public void tearDown() {
        rawArena.close();
        context.segDt(mapping);
        context.segRemove(segment);
        context.close();
    }

    private long nextOffset() {
        slot = (slot + 1) & (SLOTS - 1);
        return (long) slot << 3;
    }

    /**
     * The harness floor: the slot walk and JMH's own per-call cost, with no memory access. Subtract
     * it from the other figures to compare what the accesses themselves cost.
     *
     * @return the offset, consumed by JMH
     */
    @Benchmark
    public long baseline() {
        return nextOffset();
    }

    /** @return the loaded value, consumed by JMH */
    @Benchmark
    public long cmiGetLong() {
        return mapping.getLong(nextOffset());
    }

    /** @return the loaded value, consumed by JMH */
    @Benchmark
    public long rawGetLong() {
        return raw.get(LONG, nextOffset());
    }

    /** Stores a changing value through the mapping. */
    @Benchmark
    public void cmiPutLong() {
        mapping.putLong(nextOffset(), value++);
    }

    /** Stores a changing value through the raw segment. */
    @Benchmark
    public void rawPutLong() {
        raw.set(LONG, nextOffset(), value++);
    }

    /** @return the witness value, consumed by JMH */
    @Benchmark
    public long cmiAtmCas() {
        long off = nextOffset();
        long exp = expected[slot];
        long witness = context.atmCas(mapping, off, exp, exp + 1);
        expected[slot] = witness == exp ? exp + 1 : witness;
        return witness;
    }

    /** @return the witness value, consumed by JMH */
    @Benchmark
    public long rawCas() {
        long off = nextOffset();
        long exp = expected[slot];
        long witness = (long) ATOMIC_LONG.compareAndExchange(raw, off, exp, exp + 1);
        expected[slot] = witness == exp ? exp + 1 : witness;
        return witness;
    }
}
