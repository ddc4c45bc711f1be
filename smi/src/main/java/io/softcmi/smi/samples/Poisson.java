package io.softcmi.smi.samples;

import io.softcmi.smi.MemcpyFlag;
import io.softcmi.smi.MemcpyHandle;
import io.softcmi.smi.RegionLayout;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiAddress;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;

/**
 * The SMI example {@code poisson}: Jacobi iterations for the Poisson equation
 * {@code -Δu = f} on the unit square ({@code f = 1}, {@code u = 0} on the border) on an
 * {@code N x N} grid. The grid lives in a {@code BLOCKED} region: each process owns the rows whose
 * start lies in its segment and computes them in private memory. Per iteration it publishes its
 * first and last row into its fragment of a {@code FRAGMENTED} halo region (local stores; two
 * copies by iteration parity), meets the others at one barrier, reads its neighbours' boundary
 * rows (one {@code SMI_Memcpy} each) and computes its rows.
 * At the end every process writes its rows into the grid region and rank 0 prints a checksum of
 * the whole grid.
 * <pre>
 *   bin/smirun -np 2 -nodes local:a local:b -- io.softcmi.smi.samples.Poisson [N] [iterations] [--verify] [--phases] [--overlap-halo] [--warmup=W]
 * </pre>
 * With {@code --verify}, rank 0 then runs the same kernel sequentially in one thread and prints
 * its time and whether the grids match bit for bit. {@code --phases}: every rank prints the time
 * it spent publishing, in the barrier, waiting for halo rows and computing.
 * {@code --overlap-halo}: the halo rows are read with {@code SMI_Imemcpy} on the copy thread
 * while the rows that do not need them are computed (slower on a machine with as few cores as
 * ranks plus daemons: the copy thread's wake-ups take the time they hide; see docs/smi.md).
 * {@code --warmup=W}: every rank first runs {@code W} untimed iterations (halo reads and barriers
 * included, so its JIT and the daemons it uses are warm), then starts again from the initial grid;
 * with {@code --verify} the sequential run gets the same {@code W} untimed iterations first.
 */
public final class Poisson {
    private Poisson() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code [N] [iterations] [--verify] [--phases] [--overlap-halo] [--warmup=W]} (defaults 256, 100, 0)
     */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int iters = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        Set<String> options = Set.of(args).stream().filter(a -> a.startsWith("--")).collect(java.util.stream.Collectors.toSet());
        boolean verify = options.contains("--verify");
        boolean phases = options.contains("--phases");
        boolean blockingHalo = !options.contains("--overlap-halo");
        int warmup = options.stream().filter(o -> o.startsWith("--warmup=")).findFirst()
            .map(o -> Integer.parseInt(o.substring("--warmup=".length()))).orElse(0);
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must not be negative: " + warmup);
        }
        SampleMain.run(args, smi -> {
            int me = smi.procRank();
            long rowBytes = 8L * n;
            SmiRegion grid = smi.createShreg(RegionType.BLOCKED, Smi.initReginfo(rowBytes * n, 0), Set.of());
            // My rows: those whose first byte lies in my segment; interior rows only are computed.
            long segStart = -1;
            long segEnd = -1;
            for (RegionLayout.Segment s : grid.layout().segments()) {
                if (s.ownerRank() == me) {
                    segStart = s.offset();
                    segEnd = s.offset() + s.size();
                }
            }
            int lo = segStart < 0 ? 0 : (int) Math.min(n, (segStart + rowBytes - 1) / rowBytes);
            int hi = segStart < 0 ? 0 : (int) Math.min(n, (segEnd + rowBytes - 1) / rowBytes);
            // Halo exchange: each process's fragment holds its first and last row, twice (by
            // iteration parity), so one barrier per iteration separates writing and reading.
            SmiRegion halo = smi.createShreg(RegionType.FRAGMENTED, Smi.initReginfo(4 * rowBytes * smi.procSize(), 0),
                Set.of());
            int above = lo > 0 ? ownerOfRow(grid, lo - 1, rowBytes) : -1;
            int below = hi < n ? ownerOfRow(grid, hi, rowBytes) : -1;
            Band band = new Band(smi, n, lo, hi, halo.fragment(me), above < 0 ? null : halo.fragment(above),
                below < 0 ? null : halo.fragment(below), blockingHalo);
            smi.barrier();
            // With --warmup=W: W untimed iterations first (the same work, halo and barriers
            // included, so the JIT and the daemons are warm), then the grid starts again from
            // zero and the clock starts after one more barrier. Both runs are calls of one
            // method: nothing in its loop changes at the start of the timed run, so the compiled
            // loop is not thrown away there (a branch first taken at that point would deoptimize
            // it and recompile it inside the timed run).
            if (warmup > 0) {
                band.iterate(warmup);
                band.reset();
                smi.barrier();
            }
            double t0 = smi.wtime();
            band.iterate(iters);
            double time = smi.wtime() - t0;
            double[][] cur = band.cur;
            long[] spent = band.spent;
            if (phases) {
                System.out.print(String.format("poisson[%d]: publish=%.3f s barrier=%.3f s halo=%.3f s compute=%.3f s%n", me,
                    spent[0] / 1e9, spent[1] / 1e9, spent[2] / 1e9, spent[3] / 1e9));
            }
            MemorySegment row = MemorySegment.ofArray(new byte[(int) rowBytes]);
            for (int i = lo; i < hi; i++) {
                publish(grid, cur[i - lo + 1], i * rowBytes, row);
            }
            smi.barrier();
            if (me == 0) {
                double[] all = new double[n * n];
                MemorySegment whole = MemorySegment.ofArray(new byte[(int) (rowBytes * n)]);
                grid.get(0, whole);
                MemorySegment.copy(whole, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, all, 0, n * n);
                System.out.printf("poisson: N=%d iterations=%d processes=%d nodes=%d time=%.3f s checksum=%.12e%s%n", n, iters,
                    smi.procSize(), smi.nodeSize(), time, checksum(all),
                    warmup > 0 ? " (after " + warmup + " untimed warm-up iterations)" : "");
                if (verify) {
                    if (warmup > 0) {
                        sequential(n, warmup); // the same untimed warm-up as the ranks had
                    }
                    double s0 = smi.wtime();
                    double[] seq = sequential(n, iters);
                    double st = smi.wtime() - s0;
                    boolean same = java.util.Arrays.equals(seq, all);
                    System.out.printf("poisson: sequential time=%.3f s checksum=%.12e %s%n", st, checksum(seq),
                        same ? "(grids identical)" : "(GRIDS DIFFER)");
                    if (!same) {
                        throw new IllegalStateException("parallel and sequential grids differ");
                    }
                }
            }
            smi.barrier();
            halo.free();
            grid.free();
        });
    }

    /**
     * One process's rows {@code lo .. hi-1} in private memory (with a halo row on each side, so
     * private rows {@code lo-1 .. hi}), its halo fragments and the time it spent in each phase.
     */
    private static final class Band {
        private final Smi smi;
        private final int n;
        private final int lo;
        private final int hi;
        private final int rows;
        private final long rowBytes;
        private final double h2;
        private final SmiRegion mine;
        private final SmiRegion up;
        private final SmiRegion down;
        private final boolean blockingHalo;
        private final MemorySegment row;
        private final MemorySegment upRow;
        private final MemorySegment downRow;
        private final Set<MemcpyFlag> noBarrier = Set.of(MemcpyFlag.NOBARRIER);
        /** Time spent publishing, in the barrier, waiting for halo rows, computing (ns). */
        final long[] spent = new long[4];
        double[][] cur;
        double[][] next;
        /** Iterations done since the last {@link #reset}: their parity picks the halo copy. */
        private int done;

        Band(Smi smi, int n, int lo, int hi, SmiRegion mine, SmiRegion up, SmiRegion down, boolean blockingHalo) {
            this.smi = smi;
            this.n = n;
            this.lo = lo;
            this.hi = hi;
            this.rows = Math.max(0, hi - lo);
            this.rowBytes = 8L * n;
            this.h2 = 1.0 / ((n - 1.0) * (n - 1.0));
            this.mine = mine;
            this.up = up;
            this.down = down;
            this.blockingHalo = blockingHalo;
            this.row = MemorySegment.ofArray(new byte[(int) rowBytes]);
            this.upRow = MemorySegment.ofArray(new byte[(int) rowBytes]);
            this.downRow = MemorySegment.ofArray(new byte[(int) rowBytes]);
            this.cur = new double[rows + 2][n];
            this.next = new double[rows + 2][n];
        }

        /** Zeroes the grid and the phase times: the state before the first iteration. */
        void reset() {
            for (int i = 0; i < rows + 2; i++) {
                java.util.Arrays.fill(cur[i], 0.0);
                java.util.Arrays.fill(next[i], 0.0);
            }
            java.util.Arrays.fill(spent, 0);
            done = 0;
        }

        /** Runs {@code count} iterations, each with one barrier. */
        void iterate(int count) {
            for (int k = 0; k < count; k++) {
                step((done & 1) * 2 * rowBytes);
                done++;
            }
        }

        private void step(long parity) {
            long a = System.nanoTime();
            if (rows > 0) {
                publish(mine, cur[1], parity, row);
                publish(mine, cur[rows], parity + rowBytes, row);
            }
            long b = System.nanoTime();
            smi.barrier();
            long c = System.nanoTime();
            spent[0] += b - a;
            spent[1] += c - b;
            if (rows == 0) {
                return;
            }
            int first = Math.max(lo, 1);
            int last = Math.min(hi, n - 1);
            if (blockingHalo) {
                if (up != null) {
                    fetch(up, cur[0], parity + rowBytes, row);
                }
                if (down != null) {
                    fetch(down, cur[rows + 1], parity, row);
                }
                long d = System.nanoTime();
                for (int i = first; i < last; i++) {
                    sweep(cur, next, i - lo + 1, n, h2);
                }
                spent[2] += d - c;
                spent[3] += System.nanoTime() - d;
            } else {
                // The halo rows come on the copy thread while this one computes the rows
                // that do not need them; then the (at most two) rows next to the halos.
                MemcpyHandle hu = up == null ? null
                    : smi.imemcpy(upRow, new SmiAddress(up, parity + rowBytes), rowBytes, noBarrier);
                MemcpyHandle hd = down == null ? null
                    : smi.imemcpy(downRow, new SmiAddress(down, parity), rowBytes, noBarrier);
                int inner = up != null ? Math.max(first, lo + 1) : first;
                int innerEnd = down != null ? Math.min(last, hi - 1) : last;
                for (int i = inner; i < innerEnd; i++) {
                    sweep(cur, next, i - lo + 1, n, h2);
                }
                long d = System.nanoTime();
                if (hu != null) {
                    smi.memwait(hu);
                    MemorySegment.copy(upRow, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, cur[0], 0, n);
                }
                if (hd != null) {
                    smi.memwait(hd);
                    MemorySegment.copy(downRow, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, cur[rows + 1], 0, n);
                }
                long e = System.nanoTime();
                for (int i = first; i < last; i++) {
                    if (i < inner || i >= innerEnd) {
                        sweep(cur, next, i - lo + 1, n, h2);
                    }
                }
                spent[2] += e - d;
                spent[3] += (d - c) + (System.nanoTime() - e);
            }
            double[][] t = cur;
            cur = next;
            next = t;
        }
    }

    private static void sweep(double[][] cur, double[][] next, int li, int n, double h2) {
        double[] up = cur[li - 1];
        double[] mid = cur[li];
        double[] down = cur[li + 1];
        double[] out = next[li];
        for (int j = 1; j < n - 1; j++) {
            out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1] + h2);
        }
    }

    /**
     * The same kernel in one thread on one array.
     *
     * @param n grid size
     * @param iters iterations
     * @return the grid, row by row
     */
    public static double[] sequential(int n, int iters) {
        double[][] cur = new double[n][n];
        double[][] next = new double[n][n];
        double h2 = 1.0 / ((n - 1.0) * (n - 1.0));
        for (int it = 0; it < iters; it++) {
            for (int i = 1; i < n - 1; i++) {
                sweep(cur, next, i, n, h2);
            }
            double[][] t = cur;
            cur = next;
            next = t;
        }
        double[] all = new double[n * n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(cur[i], 0, all, i * n, n);
        }
        return all;
    }

    private static double checksum(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v;
        }
        return s;
    }

    private static int ownerOfRow(SmiRegion grid, int i, long rowBytes) {
        long at = i * rowBytes;
        for (RegionLayout.Segment s : grid.layout().segments()) {
            if (at >= s.offset() && at < s.offset() + s.size()) {
                return s.ownerRank();
            }
        }
        throw new IllegalStateException("row " + i + " is in no segment");
    }

    private static void publish(SmiRegion r, double[] row, long offset, MemorySegment buf) {
        MemorySegment.copy(row, 0, buf, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, row.length);
        r.put(offset, buf);
    }

    private static void fetch(SmiRegion r, double[] row, long offset, MemorySegment buf) {
        r.get(offset, buf);
        MemorySegment.copy(buf, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, row, 0, row.length);
    }
}
