package io.softcmi.samples;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.SegFlag;
import java.io.PrintStream;
import java.util.EnumSet;
import java.util.HexFormat;

/**
 * The "Sample Code" of {@code cmi(7)} in Java: initialize the library, allocate a 32 MiB segment
 * locked in memory, attach it, ask how large a remote segment handle is, and export the segment.
 * Each step prints the C call it stands for and what it returned.
 *
 * <pre>
 * C (cmi(7))                                      Java
 * cmi_ini(CMI_VERNO, NULL)                        Cmi.init(Cmi.LIBRARY_VERSION)
 * seg_get(ctxt, CMI_SEG_SIZE, CMI_SEG_LOCK)       ctx.segGet(SEG_SIZE, EnumSet.of(SegFlag.LOCK))
 * seg_at(ctxt, seg, ataddr, 0)                    ctx.segAt(seg, EnumSet.noneOf(AttachFlag.class))
 * attr_get(ctxt, seg, CMI_ATTR_RSEG_SIZE, ...)    ctx.attrRsegSize(seg)
 * seg_exp(ctxt, seg)                              ctx.segExp(seg, EnumSet.noneOf(ExportAttr.class))
 * </pre>
 * The C sample stops at "distribute remote segment handle to peers"; this one then cleans up
 * ({@code rseg_del}, {@code seg_dt}, {@code seg_ctl(CMI_SEG_RM)}, {@code fini}) so that it can
 * run again in the same process. Failures are {@link io.softcmi.cmi.CmiException}s carrying the
 * spec error code; the C sample's {@code fprintf} of {@code cmi_get_error} is the caller's catch.
 */
public final class SampleCode {
    /** {@code CMI_SEG_SIZE} of the C sample: 32 MiB. */
    public static final long SEG_SIZE = 32L << 20;

    private SampleCode() {
    }

    /**
     * What the sample found.
     *
     * @param version the API version {@code cmi_ini} negotiated
     * @param segmentId the segment's id ({@code si_id})
     * @param segmentSize the segment's size in bytes
     * @param mappingSize the size of the mapping {@code seg_at} returned
     * @param rsegSize what {@code attr_get(CMI_ATTR_RSEG_SIZE)} reported
     * @param handleBytes the length of the exported handle's bytes, which equals {@code rsegSize}
     */
    public record Result(CmiVersion version, long segmentId, long segmentSize, long mappingSize, long rsegSize,
            int handleBytes) {
    }

    /**
     * Runs the sample in this process, on the node {@link Cmi} chooses (the daemon named by
     * {@code SOFTCMI_NODE}, otherwise the embedded node). The calling thread must not be
     * associated with a CMI context.
     *
     * @param out where to print the steps
     * @return what the sample found
     * @throws io.softcmi.cmi.CmiException if a CMI call fails
     * @throws IllegalStateException if the exported handle is not as long as {@code attr_get} said
     */
    public static Result run(PrintStream out) {
        Result result;
        try (CmiContext ctx = Cmi.init(Cmi.LIBRARY_VERSION)) {
            step(out, "cmi_ini(CMI_VERNO=" + Cmi.LIBRARY_VERSION.verno() + ")",
                "context, API " + ctx.version().major() + "." + ctx.version().minor());
            CmiSegment seg = ctx.segGet(SEG_SIZE, EnumSet.of(SegFlag.LOCK));
            try {
                step(out, "seg_get(" + (SEG_SIZE >> 20) + " MiB, CMI_SEG_LOCK)",
                    "segment " + seg.id() + ", " + seg.size() + " bytes");
                result = attachAndExport(ctx, seg, out);
            } finally {
                ctx.segRemove(seg);
                step(out, "seg_ctl(CMI_SEG_RM)", "segment " + seg.id() + " marked for deletion");
            }
        }
        step(out, "fini", "context closed");
        return result;
    }

    private static Result attachAndExport(CmiContext ctx, CmiSegment seg, PrintStream out) {
        CmiMapping mapping = ctx.segAt(seg, EnumSet.noneOf(AttachFlag.class));
        try {
            step(out, "seg_at(seg, 0)",
                "mapping of " + mapping.size() + " bytes, " + (mapping.readOnly() ? "read-only" : "read/write"));
            ctx.enable(true);
            step(out, "cmi_enb(TRUE)", "this thread may load and store CMI segments");
            long rsegSize = ctx.attrRsegSize(seg);
            step(out, "attr_get(CMI_ATTR_RSEG_SIZE)", rsegSize + " bytes");
            RemoteSegmentHandle rseg = ctx.segExp(seg, EnumSet.noneOf(ExportAttr.class));
            byte[] handle = rseg.toBytes();
            try {
                step(out, "seg_exp(seg)", "remote segment handle of " + handle.length + " bytes");
                out.printf("  distribute it to peers over the network: %s%n", HexFormat.of().formatHex(handle));
                if (handle.length != rsegSize) {
                    throw new IllegalStateException("handle is " + handle.length + " bytes, CMI_ATTR_RSEG_SIZE said "
                        + rsegSize);
                }
                return new Result(ctx.version(), seg.id(), seg.size(), mapping.size(), rsegSize, handle.length);
            } finally {
                ctx.rsegDel(rseg);
            }
        } finally {
            ctx.segDt(mapping);
            step(out, "rseg_del(rseg), seg_dt(seg)", "export released, segment detached");
        }
    }

    private static void step(PrintStream out, String call, String result) {
        out.printf("%-36s -> %s%n", call, result);
    }

    /**
     * Runs the sample from the command line.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        Result r = run(System.out);
        System.out.println(r);
    }
}
