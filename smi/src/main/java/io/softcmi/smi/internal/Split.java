package io.softcmi.smi.internal;

import io.softcmi.smi.SmiError;
import java.util.ArrayList;
import java.util.List;

/**
 * How collective regions are cut into segments (manual §7). All sizes are multiples of the page
 * size; a part of size 0 has no segment.
 */
public final class Split {
    /**
     * One segment of a region to create.
     *
     * @param start offset in the region
     * @param size bytes (a multiple of the page size)
     * @param owner the process that exports it
     */
    public record Spec(long start, long size, int owner) {
    }

    private Split() {
    }

    /**
     * @param v a size
     * @param page the page size
     * @return {@code v} rounded up to a multiple of {@code page}
     */
    public static long roundUp(long v, long page) {
        if (v > Long.MAX_VALUE - page) {
            throw Errors.fail(SmiError.NOMEM, "size " + v + " too large");
        }
        return (v + page - 1) / page * page;
    }

    /**
     * {@code SMI_SHM_BLOCKED}: the region (rounded up to pages) is cut at the page boundaries
     * nearest to the ideal even split {@code i * size / n}, so that as few bytes as possible lie
     * on the wrong node; block {@code i} belongs to process {@code i}.
     *
     * @param size the region size in bytes
     * @param n the number of processes
     * @param page the page size
     * @return one spec per process, in order (some may be empty when there are fewer pages than processes)
     */
    public static List<Spec> blocked(long size, int n, long page) {
        return even(roundUp(size, page), n, page, n);
    }

    /**
     * {@code SMI_SHM_CYCLIC}: {@code nbr} blocks cut as for {@code BLOCKED}, block {@code j}
     * belonging to process {@code j mod n}.
     *
     * @param size the region size
     * @param nbr the number of segments
     * @param n the number of processes
     * @param page the page size
     * @return the specs
     */
    public static List<Spec> cyclic(long size, int nbr, int n, long page) {
        if (nbr < 1) {
            throw Errors.fail(SmiError.PARAM, "CYCLIC needs nbrSgmts >= 1, got " + nbr);
        }
        return even(roundUp(size, page), nbr, page, n);
    }

    private static List<Spec> even(long total, int parts, long page, int n) {
        long pages = total / page;
        List<Spec> out = new ArrayList<>();
        long prev = 0;
        for (int i = 1; i <= parts; i++) {
            // Nearest page boundary to i * pages / parts, in exact integer arithmetic (round half up).
            long boundary = Math.floorDiv(2 * (long) i * pages + parts, 2L * parts);
            out.add(new Spec(prev * page, (boundary - prev) * page, (i - 1) % n));
            prev = boundary;
        }
        return out;
    }

    /**
     * {@code SMI_SHM_CUSTOMIZED}: user-given sizes (each rounded up to pages) and owners.
     *
     * @param size the region size (rounded up to pages, it must equal the sum of the rounded sizes)
     * @param owners the owner of each segment
     * @param sizes the size of each segment
     * @param n the number of processes
     * @param page the page size
     * @return the specs
     */
    public static List<Spec> customized(long size, int[] owners, long[] sizes, int n, long page) {
        if (owners.length == 0 || owners.length != sizes.length || owners.length > n) {
            throw Errors.fail(SmiError.PARAM, "CUSTOMIZED needs 1.." + n + " segments with an owner and a size each ("
                + owners.length + " owners, " + sizes.length + " sizes)");
        }
        List<Spec> out = new ArrayList<>();
        long at = 0;
        for (int j = 0; j < owners.length; j++) {
            Errors.checkRank(owners[j], n, "sgmtOwner[" + j + "]");
            if (sizes[j] <= 0) {
                throw Errors.fail(SmiError.PARAM, "sgmtSize[" + j + "] must be positive, got " + sizes[j]);
            }
            long s = roundUp(sizes[j], page);
            out.add(new Spec(at, s, owners[j]));
            at += s;
        }
        if (at != roundUp(size, page)) {
            throw Errors.fail(SmiError.PARAM, "CUSTOMIZED: the segment sizes add up to " + at
                + " bytes (page-rounded), not the region size " + roundUp(size, page));
        }
        return out;
    }

    /**
     * {@code SMI_SHM_FRAGMENTED}: each process exports {@code size / n} bytes (rounded up to pages).
     *
     * @param size the total size
     * @param n the number of processes
     * @param page the page size
     * @return one spec per process
     */
    public static List<Spec> fragmented(long size, int n, long page) {
        long each = roundUp(Math.max(1, size / n), page);
        List<Spec> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            out.add(new Spec(r * each, each, r));
        }
        return out;
    }
}
