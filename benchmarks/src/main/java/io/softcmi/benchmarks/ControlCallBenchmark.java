package io.softcmi.benchmarks;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiInfo;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.SegStatus;
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
 * Latency of control calls on the embedded node: each is a request over the node's Unix-domain
 * control socket and a reply, plus what the node does (create and size a segment file, map it,
 * unmap it, delete it). The whole {@code seg_get}, {@code seg_at}, {@code seg_dt},
 * {@code seg_ctl(CMI_SEG_RM)} cycle of one 1 MiB segment is one operation of {@link #lifecycle};
 * the others isolate each call (what a call needs is made, or undone, outside the measurement
 * with JMH per-invocation fixtures, which are sound for calls this long) and two cheap round trips.
 *
 * <p>Sample mode, so the report has percentiles as well as the mean: a control call that
 * sometimes waits for a parked thread to wake shows up in the tail.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// FFM and the node's native calls; JMH itself still uses sun.misc.Unsafe.
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class ControlCallBenchmark {
    private static final long SEGMENT_SIZE = 1 << 20;
    private static final Set<SegFlag> NO_FLAGS = EnumSet.noneOf(SegFlag.class);

    /**
     * The benchmark thread's context and a segment kept for the calls that need one to exist.
     * The per-invocation fixtures below extend it rather than take it as a parameter: JMH would
     * make a second instance for the parameter, and a second {@code Cmi.init} on one thread fails
     * with {@code BOUND}.
     */
    @State(Scope.Thread)
    public static class Session {
        CmiContext context;
        CmiSegment kept;

        /** Opens a context in the benchmark thread and makes the kept segment. */
        @Setup(Level.Trial)
        public void setUp() {
            context = Cmi.init(Cmi.LIBRARY_VERSION);
            kept = context.segGet(SEGMENT_SIZE, NO_FLAGS);
        }

        /** Removes the kept segment and ends the context. */
        @TearDown(Level.Trial)
        public void tearDown() {
            context.segRemove(kept);
            context.close();
        }
    }

    /**
     * One whole cycle: {@code seg_get}, {@code seg_at}, {@code seg_dt}, {@code seg_ctl(CMI_SEG_RM)}.
     *
     * @param s the thread's context
     * @return the removed segment, consumed by JMH
     */
    @Benchmark
    public CmiSegment lifecycle(Session s) {
        CmiSegment seg = s.context.segGet(SEGMENT_SIZE, NO_FLAGS);
        CmiMapping m = s.context.segAt(seg, Set.of());
        s.context.segDt(m);
        s.context.segRemove(seg);
        return seg;
    }

    /**
     * {@code seg_get} alone; the segment is removed after the measured call.
     *
     * @param made the thread's context, undoing the call afterwards
     * @return the new segment
     */
    @Benchmark
    public CmiSegment segGet(Made made) {
        made.segment = made.context.segGet(SEGMENT_SIZE, NO_FLAGS);
        return made.segment;
    }

    /**
     * {@code seg_ctl(CMI_SEG_RM)} alone, of an unattached segment (so the node reclaims it at once).
     *
     * @param fresh the thread's context and the segment made before the call
     */
    @Benchmark
    public void segRemove(Fresh fresh) {
        fresh.context.segRemove(fresh.segment);
    }

    /**
     * {@code seg_at} alone; the mapping is detached after the measured call.
     *
     * @param made the thread's context, undoing the call afterwards
     * @return the new mapping
     */
    @Benchmark
    public CmiMapping segAt(Made made) {
        made.mapping = made.context.segAt(made.kept, Set.of());
        return made.mapping;
    }

    /**
     * {@code seg_dt} alone.
     *
     * @param attached the thread's context and the mapping made before the call
     */
    @Benchmark
    public void segDt(Attached attached) {
        attached.context.segDt(attached.mapping);
    }

    /**
     * {@code seg_ctl(CMI_SEG_STATUS)}: one round trip to the node that changes nothing.
     *
     * @param s the thread's context
     * @return the segment's status
     */
    @Benchmark
    public SegStatus segStatus(Session s) {
        return s.context.segStatus(s.kept);
    }

    /**
     * {@code cmi_ctl(CMI_CTL_INFO)}: one round trip to the node that changes nothing.
     *
     * @param s the thread's context
     * @return the node's figures
     */
    @Benchmark
    public CmiInfo ctlInfo(Session s) {
        return s.context.ctlInfo();
    }

    /** Undoes, after each call and outside the measurement, what {@code segGet} or {@code segAt} made. */
    @State(Scope.Thread)
    public static class Made extends Session {
        CmiSegment segment;
        CmiMapping mapping;

        /** Detaches and removes what the measured call made. */
        @TearDown(Level.Invocation)
        public void undo() {
            if (mapping != null) {
                context.segDt(mapping);
                mapping = null;
            }
            if (segment != null) {
                context.segRemove(segment);
                segment = null;
            }
        }
    }

    /** A segment made before each call, outside the measurement, for {@code segRemove}. */
    @State(Scope.Thread)
    public static class Fresh extends Session {
        CmiSegment segment;

        /** Makes the segment the measured call removes. */
        @Setup(Level.Invocation)
        public void make() {
            segment = context.segGet(SEGMENT_SIZE, NO_FLAGS);
        }
    }

    /** An attach of the kept segment made before each call, outside the measurement, for {@code segDt}. */
    @State(Scope.Thread)
    public static class Attached extends Session {
        CmiMapping mapping;

        /** Makes the mapping the measured call detaches. */
        @Setup(Level.Invocation)
        public void attach() {
            mapping = context.segAt(kept, Set.of());
        }
    }
}
