package io.softcmi.vmmc;

import java.util.Map;
import java.util.TreeMap;

/**
 * DestSpace: the imaginary address space of imports. Each import gets a page-aligned region of
 * {@code nwords * 4} bytes from {@link #BASE} upwards, with an unmapped guard page after it, so
 * proxy addresses allow pointer arithmetic and a transfer running past an import's end is seen.
 * Limits: {@code vmmc.maxImports} imports (default 4096, then NO_PHYS_DEST_SPACE) and
 * {@code vmmc.destSpaceBytes} bytes of addresses (default 2^40, then NO_VIRT_DEST_SPACE);
 * addresses of unimported buffers are not reused.
 */
final class DestSpace {
    /** The first DestSpace address. */
    static final long BASE = 0x1000_0000_0000L;
    private final int maxImports = Integer.getInteger("vmmc.maxImports", 4096);
    private final long space = Long.getLong("vmmc.destSpaceBytes", 1L << 40);

    private final TreeMap<Long, ImportHandle> regions = new TreeMap<>();
    private long next = BASE;

    synchronized long reserve(long nwords) {
        if (regions.size() >= maxImports) {
            throw new VmmcException(VmmcResult.NO_PHYS_DEST_SPACE, maxImports + " imports");
        }
        long bytes = (nwords * Vmmc.WORD + Vmmc.PAGE - 1) / Vmmc.PAGE * Vmmc.PAGE + Vmmc.PAGE;
        if (next + bytes - BASE > space) {
            throw new VmmcException(VmmcResult.NO_VIRT_DEST_SPACE, space + " bytes used");
        }
        long at = next;
        next += bytes;
        return at;
    }

    synchronized void add(ImportHandle h) {
        regions.put(h.proxyBuf, h);
    }

    synchronized void remove(ImportHandle h) {
        regions.remove(h.proxyBuf, h);
    }

    /** @param addr a DestSpace address @return the import whose region (or guard page) holds it, or null */
    synchronized ImportHandle find(long addr) {
        Map.Entry<Long, ImportHandle> e = regions.floorEntry(addr);
        return e == null ? null : e.getValue();
    }
}
