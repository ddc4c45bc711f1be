package io.softcmi.benchmarks.cluster;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bandwidth half of {@link VmmcBenchmark}: reads the bandwidth samples' output
 * ({@code nwords bytes MB/s} lines, with an optional {@code (N messages in S s)} line after each)
 * and prints the rounds of the large sizes (per-round figures, medians and the ratio of medians).
 */
final class VmmcBandwidth {
    private VmmcBandwidth() {
    }

    /**
     * One size of a sample's output.
     *
     * @param mbPerSecond the sample's MB/s (10^6 bytes)
     * @param messages the messages it timed, or -1 if it did not say (no {@code vmmc.bandwidth.seconds})
     */
    record Point(double mbPerSecond, long messages) {
    }

    /**
     * Reads a bandwidth sample's output.
     *
     * @param out the sample's whole output
     * @return bytes per message to its point, in the order printed
     */
    static Map<Integer, Point> parse(String out) {
        Map<Integer, Point> points = new LinkedHashMap<>();
        String[] lines = out.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String[] f = lines[i].trim().split("\\s+");
            if (f.length == 3 && f[0].matches("\\d+") && f[1].matches("\\d+") && f[2].matches("[0-9.]+")) {
                String next = i + 1 < lines.length ? lines[i + 1] : "";
                String count = next.replaceAll("(?s)^\\s*\\((\\d+) messages.*", "$1");
                points.put(Integer.parseInt(f[1]), new Point(Double.parseDouble(f[2]),
                    count.matches("\\d+") ? Long.parseLong(count) : -1));
            }
        }
        return points;
    }

    /** @return the median of {@code v} (the mean of the middle two for an even count) */
    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
    }

    /**
     * Prints one table of rounds: per size, each round's raw and VMMC MB/s, their medians and the
     * ratio of the medians.
     *
     * @param out where to print
     * @param title the table's heading
     * @param sizes the sizes in bytes
     * @param raw per size, the raw figure of each round
     * @param vmmc per size, the VMMC figure of each round
     */
    static void printRounds(StringBuilder out, String title, List<Integer> sizes, double[][] raw, double[][] vmmc) {
        out.append(String.format(Locale.ROOT, "%n%s%n", title));
        out.append(String.format(Locale.ROOT, "%10s %-6s %-44s %10s%n", "bytes", "", "MB/s per round", "median"));
        for (int s = 0; s < sizes.size(); s++) {
            double rm = median(raw[s]);
            double vm = median(vmmc[s]);
            out.append(String.format(Locale.ROOT, "%10d %-6s %-44s %10.1f%n", sizes.get(s), "raw", row(raw[s]), rm));
            out.append(String.format(Locale.ROOT, "%10s %-6s %-44s %10.1f   ratio of medians %.2f (%s)%n", "", "VMMC",
                row(vmmc[s]), vm, vm / rm, vm / rm >= 0.8 ? ">= 80%" : "< 80%"));
        }
    }

    private static String row(double[] v) {
        StringBuilder b = new StringBuilder();
        for (double x : v) {
            b.append(String.format(Locale.ROOT, "%.0f ", x));
        }
        return b.toString().strip();
    }
}
