package io.softcmi.benchmarks.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One comparison (softcmi against raw TCP) taken over several alternating rounds of a benchmark
 * run: each round's ratio, and their median and range. On these machines two runs of one build
 * minutes apart differ by up to a half, so a median over rounds taken in the same minutes says
 * more than any one round.
 */
final class RoundRatios {
    private final String label;
    private final List<Double> ratios = new ArrayList<>();

    /** @param label what is compared, for example {@code "ops/s, softcmi / raw, 32 contexts, 1 process"} */
    RoundRatios(String label) {
        this.label = label;
    }

    /**
     * The value of a {@code --rounds} option.
     *
     * @return the count
     * @throws IllegalArgumentException if it is not a number of at least 1
     */
    static int count(String value) {
        int k = Integer.parseInt(value);
        if (k < 1) {
            throw new IllegalArgumentException("--rounds needs at least 1, got " + k);
        }
        return k;
    }

    /** Adds one round's ratio. */
    void add(double ratio) {
        ratios.add(ratio);
    }

    /** @return the median of the rounds' ratios (the mean of the middle two for an even count) */
    double median() {
        if (ratios.isEmpty()) {
            throw new IllegalStateException("no rounds");
        }
        List<Double> sorted = ratios.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** @return one line: the label, the median, the range and every round's ratio in order */
    String summary() {
        double min = ratios.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max = ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        StringBuilder each = new StringBuilder();
        for (double r : ratios) {
            each.append(each.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.2f", r));
        }
        return String.format(Locale.ROOT, "%s: median %.2f over %d rounds (range %.2f-%.2f; rounds %s)", label, median(),
            ratios.size(), min, max, each);
    }
}
