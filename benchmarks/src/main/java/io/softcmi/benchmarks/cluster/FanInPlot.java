package io.softcmi.benchmarks.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** {@link FanInBenchmark}'s curves (throughput and p99 against contexts, log-log) as a {@link LogLogPlot}. */
final class FanInPlot {
    private FanInPlot() {
    }

    static void draw(List<FanInBenchmark.Point> points, Path png) throws IOException {
        LogLogPlot.draw(List.of(panel("aggregate throughput (ops/s)", points, FanInBenchmark.Point::opsPerSec),
            panel("p99 latency (us)", points, FanInBenchmark.Point::p99us)), png);
    }

    /** One series per system and process count, raw servers dashed. */
    private static LogLogPlot.Panel panel(String title, List<FanInBenchmark.Point> points,
            ToDoubleFunction<FanInBenchmark.Point> value) {
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (FanInBenchmark.Point p : points) {
            series.computeIfAbsent(p.system() + ", " + p.procs() + (p.procs() == 1 ? " process" : " processes"),
                k -> new ArrayList<>()).add(new double[] {p.contexts(), value.applyAsDouble(p)});
        }
        List<LogLogPlot.Series> lines = new ArrayList<>();
        series.forEach((name, pts) -> lines.add(new LogLogPlot.Series(name, name.startsWith("raw"), pts)));
        return new LogLogPlot.Panel(title, "concurrent contexts / client threads", Long::toString, 1, lines);
    }
}
