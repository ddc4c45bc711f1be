package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The row kernels (on arrays and on a memory segment) compute exactly the textbook formula
 * {@code 0.25 * (above[j] + below[j] + here[j - 1] + here[j + 1])}, bit for bit, and copy the two
 * boundary cells: the sample's results are compared bit for bit with the sequential run, so both
 * kernels must keep the formula's order of additions.
 */
class JacobiKernelTest {
    private static final int[] SIZES = {1, 2, 3, 4, 17, 64};

    @Test
    void shouldComputeTheFormulaBitForBitOnArrays() {
        SplittableRandom random = new SplittableRandom(7);
        for (int n : SIZES) {
            double[] above = randomRow(random, n);
            double[] here = randomRow(random, n);
            double[] below = randomRow(random, n);
            double[] out = new double[n];
            JacobiStencil.kernelRow(above, here, below, out);
            assertRow(expected(above, here, below), out, n);
        }
    }

    @Test
    void shouldComputeTheFormulaBitForBitOnASegment() {
        SplittableRandom random = new SplittableRandom(11);
        try (Arena arena = Arena.ofConfined()) {
            for (int n : SIZES) {
                double[] above = randomRow(random, n);
                double[] here = randomRow(random, n);
                double[] below = randomRow(random, n);
                MemorySegment grid = arena.allocate(4L * n * Double.BYTES, Double.BYTES);
                MemorySegment.copy(above, 0, grid, ValueLayout.JAVA_DOUBLE, 0, n);
                MemorySegment.copy(here, 0, grid, ValueLayout.JAVA_DOUBLE, (long) n * Double.BYTES, n);
                MemorySegment.copy(below, 0, grid, ValueLayout.JAVA_DOUBLE, 2L * n * Double.BYTES, n);
                JacobiStencil.kernelRow(grid, 0, n, 2L * n, 3L * n, n);
                double[] out = grid.asSlice(3L * n * Double.BYTES, (long) n * Double.BYTES).toArray(ValueLayout.JAVA_DOUBLE);
                assertRow(expected(above, here, below), out, n);
            }
        }
    }

    private static double[] expected(double[] above, double[] here, double[] below) {
        int n = here.length;
        double[] out = here.clone();
        for (int j = 1; j < n - 1; j++) {
            out[j] = 0.25 * (above[j] + below[j] + here[j - 1] + here[j + 1]);
        }
        return out;
    }

    private static double[] randomRow(SplittableRandom random, int n) {
        double[] row = new double[n];
        for (int j = 0; j < n; j++) {
            row[j] = random.nextDouble(-1e6, 1e6);
        }
        return row;
    }

    private static void assertRow(double[] expected, double[] actual, int n) {
        for (int j = 0; j < n; j++) {
            assertEquals(Double.doubleToRawLongBits(expected[j]), Double.doubleToRawLongBits(actual[j]),
                "cell " + j + " of a row of " + n);
        }
    }
}
