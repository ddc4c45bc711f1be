package io.softcmi.cmi.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options softcmi's launchers give the JVMs they start (daemons, SMI ranks, the samples'
 * and benchmarks' children; {@code bin/softcmi-env} gives the same to {@code cmid},
 * {@code softcmi} and {@code smirun}): HotSpot compiles softcmi's own code, and only that, after
 * a tenth of its usual call and loop counts ({@code -XX:CompileCommand=CompileThresholdScaling}).
 *
 * <p>Why (docs/architecture.md §7.5c): a daemon runs each request's code once, so where requests
 * are sparse (a few per millisecond, as in the Jacobi sample's barriers and halo reads) its data
 * path stayed in C1's profiling tier for ten seconds and more. Measured 2026-11-28 in four
 * alternating pairs of the Jacobi benchmark on two daemons: better in three (medians 0.69×,
 * 0.67×, 0.75× and 0.68× of the sequential run, against 0.98×, 0.83×, 0.72× and 0.86×
 * without); the single client's remote access and the fan-in were unchanged. Scaling every class instead ({@code -XX:CompileThresholdScaling=0.1},
 * tried earlier the same day) made the single client slower: the JDK's own code, compiled that
 * early, had less profile.
 *
 * <p>System property {@value #PROPERTY}{@code =off} (or environment {@code SOFTCMI_JIT_OPTS=} set
 * empty, for the shell launchers) starts children without them, to measure the choice.
 */
public final class JitOptions {
    /** System property {@value}: {@code off} leaves the options out. */
    public static final String PROPERTY = "softcmi.jit";
    /** The share of HotSpot's compile thresholds that softcmi's code gets. */
    public static final String SCALING = "0.1";
    /** softcmi's library packages: the code on the request paths of daemons and processes. */
    static final List<String> PACKAGES = List.of("io.softcmi.cmi", "io.softcmi.node", "io.softcmi.wire", "io.softcmi.smi",
        "io.softcmi.vmmc");

    private JitOptions() {
    }

    /**
     * @return the options to put on a child JVM's command line, before the main class; none
     *     when {@value #PROPERTY} is {@code off}
     */
    public static List<String> forChild() {
        if ("off".equals(System.getProperty(PROPERTY))) {
            return List.of();
        }
        List<String> options = new ArrayList<>();
        options.add("-XX:CompileCommand=quiet");
        for (String p : PACKAGES) {
            options.add("-XX:CompileCommand=CompileThresholdScaling," + p + ".*::*," + SCALING);
        }
        return List.copyOf(options);
    }
}
