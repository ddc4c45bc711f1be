package io.softcmi.samples;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Jacobi result a set of worker processes left behind, compared cell by cell, bit for bit,
 * with the sequential grid: each worker {@code r} writes its band (the rows from
 * {@link JacobiWorker#first(int, int, int)}) to {@code DIR/result-r.bin}, row-major doubles in
 * native byte order. Used for the sample's workers ({@link JacobiProcesses}) and for the
 * benchmark's raw floors.
 */
public final class JacobiBands {
    private JacobiBands() {
    }

    /**
     * The outcome of a comparison.
     *
     * @param mismatches cells that differ from the sequential result (0 when bit-for-bit equal)
     * @param maxDiff the largest difference from the sequential result
     */
    public record Comparison(long mismatches, double maxDiff) {
        /** @return this and {@code other} together */
        public Comparison plus(Comparison other) {
            return new Comparison(mismatches + other.mismatches, Math.max(maxDiff, other.maxDiff));
        }
    }

    /**
     * Compares the bands of {@code workers} result files with the sequential grid.
     *
     * @param dir where the workers wrote {@code result-RANK.bin}
     * @param workers how many workers split the rows
     * @param n grid size
     * @param expected the sequential grid
     * @return the cells that differ and the largest difference
     * @throws IOException if a file is missing or does not hold exactly its band
     */
    public static Comparison compareFiles(Path dir, int workers, int n, double[][] expected) throws IOException {
        Comparison total = new Comparison(0, 0);
        double[] row = new double[n];
        for (int r = 0; r < workers; r++) {
            int first = JacobiWorker.first(r, workers, n);
            int last = JacobiWorker.first(r + 1, workers, n);
            DoubleBuffer band = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("result-" + r + ".bin")))
                .order(ByteOrder.nativeOrder()).asDoubleBuffer();
            if (band.remaining() != (long) (last - first) * n) {
                throw new IOException("worker " + r + " wrote " + band.remaining() + " cells, not " + (long) (last - first) * n);
            }
            for (int i = first; i < last; i++) {
                band.get(row);
                total = total.plus(compareRow(row, expected[i]));
            }
        }
        return total;
    }

    /**
     * Compares one row with the sequential one, bit for bit.
     *
     * @param row the computed row
     * @param expected the sequential row
     * @return the cells that differ and the largest difference
     */
    public static Comparison compareRow(double[] row, double[] expected) {
        long mismatches = 0;
        double maxDiff = 0;
        for (int j = 0; j < row.length; j++) {
            if (Double.doubleToRawLongBits(row[j]) != Double.doubleToRawLongBits(expected[j])) {
                mismatches++;
                maxDiff = Math.max(maxDiff, Math.abs(row[j] - expected[j]));
            }
        }
        return new Comparison(mismatches, maxDiff);
    }
}
