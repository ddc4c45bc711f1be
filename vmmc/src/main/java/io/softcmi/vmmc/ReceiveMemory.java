package io.softcmi.vmmc;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.direct.DirectViews;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The memory {@code vmmc_allocate}-style calls ({@link Vmmc#allocate}) hand out: each allocation
 * is a CMI segment of this process's node, attached, and the caller gets its mapping itself
 * ({@link DirectViews#view}). A receive buffer exported from the start of such an allocation
 * <em>is</em> its segment ({@link Exports}): the home daemon reads an arriving message straight
 * into the receiver's memory and nothing copies it again, which is the manual's model ("it is
 * transferred directly into the memory of the receiving process"). Memory this endpoint cannot
 * back by a segment (the segment cannot be made, or the calling thread has not enabled CMI
 * access) comes from a plain arena instead; a buffer there is exported with a segment of its own
 * and every message copied into it.
 */
final class ReceiveMemory {
    /** One allocation backed by a segment. @param segment the segment @param mapping its local attach */
    record Backing(CmiSegment segment, CmiMapping mapping) {
    }

    private final CmiContext ctx;
    private final Arena fallback;
    /** By the address of the memory handed out. */
    private final Map<Long, Backing> bySegmentAddress = new ConcurrentHashMap<>();

    ReceiveMemory(CmiContext ctx, Arena fallback) {
        this.ctx = ctx;
        this.fallback = fallback;
    }

    /**
     * Page-aligned, zeroed memory of {@code bytes} bytes: a segment's mapping where possible.
     *
     * @param bytes the size
     * @param page the page size: a segment's size is a multiple of it, and the memory is aligned to it
     * @return the memory, valid until the endpoint closes
     */
    MemorySegment allocate(long bytes, long page) {
        CmiSegment seg = null;
        try {
            seg = ctx.segGet((bytes + page - 1) / page * page, Set.of()); // a whole number of pages
            CmiMapping m = ctx.segAt(seg, Set.of());
            MemorySegment view = DirectViews.view(m).asSlice(0, bytes);
            bySegmentAddress.put(view.address(), new Backing(seg, m));
            return view;
        } catch (RuntimeException noSegment) {
            if (seg != null) {
                try {
                    ctx.segRemove(seg);
                } catch (RuntimeException ignored) {
                    // best effort: the segment goes with the context at the latest
                }
            }
            return fallback.allocate(bytes, page);
        }
    }

    /**
     * The segment behind a buffer that starts where an allocation starts and fits in it.
     *
     * @param buf a buffer
     * @param bytes the bytes of it to export
     * @return the allocation's backing, or null if {@code buf} is not such a buffer
     */
    Backing backing(MemorySegment buf, long bytes) {
        if (!buf.isNative()) {
            return null;
        }
        Backing b = bySegmentAddress.get(buf.address());
        return b != null && bytes <= b.mapping().size() ? b : null;
    }
}
