package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.smi.run.SmirunLauncher.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code smirun} for real: a child JVM running {@link SmiRun} with this JVM's class path, which
 * starts two {@code cmid} daemons (pseudo-hosts {@code local:a} and {@code local:b}) and the ranks
 * as processes. Every run is checked for its exit code and output, and afterwards for processes or
 * segment directories left behind.
 */
class SmirunSystemTest {
    private static final double FACTOR = Double.parseDouble(System.getProperty("softcmi.test.timeoutFactor", "1"));

    @TempDir
    Path tmp;

    /** {@code SMI_WATCHDOG} for the ranks, or null for the default (30 s). */
    private String watchdogSeconds;

    /** Environment added to smirun's. */
    private final java.util.Map<String, String> extraEnv = new java.util.HashMap<>();

    private static String[] nodes(int np) {
        List<String> a = new ArrayList<>(List.of("-np", Integer.toString(np), "-nodes"));
        for (int i = 0; i < np; i++) {
            a.add(i < (np + 1) / 2 ? "local:a" : "local:b");
        }
        return a.toArray(String[]::new);
    }

    private Result smirun(String... args) throws IOException, InterruptedException {
        return smirun(null, 0, args);
    }

    /**
     * Runs smirun; if {@code stopLine} is given, sends it SIGTERM once its output has that line
     * {@code stopCount} times.
     */
    private Result smirun(String stopLine, int stopCount, String... args) throws IOException, InterruptedException {
        java.util.Map<String, String> env = new java.util.HashMap<>(extraEnv);
        if (watchdogSeconds != null) {
            env.put("SMI_WATCHDOG", watchdogSeconds);
        }
        return SmirunLauncher.run(tmp, Duration.ofSeconds(240), env, stopLine, stopCount, args);
    }

    static Stream<Arguments> samples() {
        List<Arguments> a = new ArrayList<>();
        for (int np : new int[] {1, 2, 4}) {
            a.add(Arguments.of("HelloWorld", np, List.of(), "Hello world from process " + (np - 1) + " of " + np));
            a.add(Arguments.of("Regions", np, List.of(), "regions: OK"));
            a.add(Arguments.of("Sync", np, List.of("50"), "sync: OK"));
            a.add(Arguments.of("Signal", np, List.of(), "signal: OK"));
            a.add(Arguments.of("Poisson", np, List.of("128", "20", "--verify"), "(grids identical)"));
            if (np > 1) { // the imemcpy variant of the halo reads
                a.add(Arguments.of("Poisson", np, List.of("128", "20", "--verify", "--overlap-halo"), "(grids identical)"));
                // After an untimed warm-up the grid starts again: --verify (exit 0) proves it.
                a.add(Arguments.of("Poisson", np, List.of("128", "20", "--verify", "--warmup=7"),
                    "(after 7 untimed warm-up iterations)"));
            }
            a.add(Arguments.of("LoopSchedule", np, List.of("400"), "loops: OK"));
            a.add(Arguments.of("Replicate", np, List.of(), "replicate: OK"));
            a.add(Arguments.of("Flood", np, List.of("200"), "flood: OK"));
            a.add(Arguments.of("RegLimits", np, List.of("100", "1048576"), "reglimits: OK"));
            a.add(Arguments.of("MemcpyBench", np, List.of("65536"), "overlap: remote copy of 65536 bytes"));
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{0} with {1} ranks over two daemons")
    @MethodSource("samples")
    void shouldRunSampleOverTwoDaemons(String sample, int np, List<String> args, String expected) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(nodes(np)));
        cmd.add("--");
        cmd.add("io.softcmi.smi.samples." + sample);
        cmd.addAll(args);
        Result r = smirun(cmd.toArray(String[]::new));
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains(expected), "missing '" + expected + "' in:\n" + r.output());
        if (sample.equals("HelloWorld")) {
            for (int i = 0; i < np; i++) {
                assertTrue(r.output().contains("Hello world from process " + i + " of " + np), r.output());
            }
        }
    }

    /**
     * A node on "another host" reached over ssh: the host is 127.0.0.2 (this machine's loopback,
     * where the daemon listens) and {@code SMI_SSH} names a stand-in for ssh that logs the host and
     * runs the command here, so the whole remote path runs: the daemon started over ssh, a rank
     * started over ssh with its environment on the command line, and the daemon stopped over ssh
     * at the end.
     */
    @Test
    void shouldStartAndStopARemoteNodesDaemonAndRankOverSsh() throws Exception {
        Path hosts = tmp.resolve("ssh-hosts.log");
        Path fakeSsh = tmp.resolve("fake-ssh");
        Files.writeString(fakeSsh, "#!/bin/sh\n"
            + "echo \"$1\" >> " + hosts + "\n"
            + "shift\n"
            + "PATH=" + Path.of(System.getProperty("java.home"), "bin") + ":$PATH exec sh -c \"$*\"\n");
        Files.setPosixFilePermissions(fakeSsh, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        extraEnv.put("SMI_SSH", fakeSsh.toString());
        Result r = smirun("-np", "2", "-nodes", "local:a", "127.0.0.2", "io.softcmi.smi.samples.HelloWorld");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("Hello world from process 1 of 2 on node 1 (127.0.0.2)"), r.output());
        List<String> viaSsh = Files.readAllLines(hosts);
        // The daemon, the rank, and the daemon's stop: each through ssh to that host.
        assertEquals(List.of("127.0.0.2", "127.0.0.2", "127.0.0.2"), viaSsh, "ssh calls");
    }

    @Test
    void shouldStartAndStopARemoteNodesDaemonAndRankWithSrunInsideASlurmAllocation() throws Exception {
        // A stand-in srun first on the PATH: it logs the host it was asked for, checks the
        // options smirun passes, and runs the command here in the requested directory.
        Path bin = Files.createDirectories(tmp.resolve("slurm-bin"));
        Path hosts = tmp.resolve("srun-hosts.log");
        Files.writeString(bin.resolve("srun"), "#!/bin/sh\n"
            + "[ \"$1\" = --nodes=1 ] && [ \"$2\" = --ntasks=1 ] || { echo \"srun: unexpected $1 $2\" >&2; exit 9; }\n"
            + "host=${3#--nodelist=}; dir=${4#--chdir=}\n"
            + "echo \"$host\" >> " + hosts + "\n"
            + "shift 4\n"
            + "cd \"$dir\" && PATH=" + Path.of(System.getProperty("java.home"), "bin") + ":$PATH exec \"$@\"\n");
        Files.setPosixFilePermissions(bin.resolve("srun"), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        extraEnv.put("PATH", bin + ":" + System.getenv("PATH"));
        extraEnv.put("SLURM_JOB_ID", "4242");
        Result r = smirun("-np", "2", "-nodes", "local:a", "127.0.0.2", "io.softcmi.smi.samples.HelloWorld");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("Hello world from process 1 of 2 on node 1 (127.0.0.2)"), r.output());
        // The daemon, the rank, and the daemon's stop: each through srun on that host.
        assertEquals(List.of("127.0.0.2", "127.0.0.2", "127.0.0.2"), Files.readAllLines(hosts), "srun calls");
    }

    @Test
    void shouldReportTransferWhenACopysRemoteRegionIsGone() throws Exception {
        Result r = smirun("-np", "2", "-nodes", "local:a", "local:b", TransferFailure.class.getName());
        assertEquals(0, r.exit(), r.output());
        for (String call : List.of("memcpy", "memwait", "checkTransfer", "memtest")) {
            assertTrue(r.output().contains("transfer: " + call + " gave TRANSFER"), r.output());
        }
        for (String call : List.of("memwaitAll", "memtestAll")) {
            assertTrue(r.output().contains("transfer: " + call + " gave OTHER [TRANSFER]"), r.output());
        }
        assertTrue(r.output().contains("transfer: OK"), r.output());
    }

    @Test
    void shouldDrawTheMemcpyCurveAsAPng() throws Exception {
        Result r = smirun("-np", "2", "-nodes", "local:a", "local:b", "io.softcmi.smi.samples.MemcpyBench", "65536", "--png",
            "curve.png");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("curve drawn in curve.png"), r.output());
        java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(tmp.resolve("curve.png").toFile());
        assertEquals(900, img.getWidth());
        // Every series drew something: count pixels of each line's colour.
        for (int rgb : new int[] {0x1f77b4, 0x2ca02c, 0xd62728, 0xff7f0e}) {
            int n = 0;
            for (int x = 0; x < img.getWidth(); x++) {
                for (int y = 0; y < img.getHeight(); y++) {
                    n += (img.getRGB(x, y) & 0xffffff) == rgb ? 1 : 0;
                }
            }
            assertTrue(n > 50, String.format("colour %06x drawn in %d pixels", rgb, n));
        }
    }

    @Test
    void shouldEndTheJobWithTheAbortCodeWhenARankCallsAbort() throws Exception {
        Result r = smirun(nodes(3)[0], "3", "-nodes", "local:a", "local:a", "local:b", FailingRank.class.getName(), "abort");
        assertEquals(3, r.exit(), r.output());
        assertTrue(r.output().contains("SMI_Abort(3)"), r.output());
    }

    @Test
    void shouldEndTheJobWhenARankDies() throws Exception {
        Result r = smirun("-np", "3", "-nodes", "local:a", "local:b", "local:b", FailingRank.class.getName(), "crash");
        assertEquals(5, r.exit(), r.output());
        assertTrue(r.output().contains("rank 2 exited with code 5"), r.output());
    }

    @Test
    void shouldEndTheJobByTheWatchdogWhenARankStopsGivingSignsOfLife() throws Exception {
        watchdogSeconds = "4";
        Result r = smirun("-np", "3", "-nodes", "local:a", "local:b", "local:b", FailingRank.class.getName(), "hang");
        assertEquals(1, r.exit(), r.output());
        assertTrue(r.output().contains("process 2 gave no sign of life for 4 s"), r.output());
        assertTrue(r.output().contains("callback ran"), r.output());
    }

    /**
     * {@code finish}: the others wait at one more barrier; {@code finishInFinalize}: they wait in
     * their own SMI_Finalize, whose watchdog thread has stopped, so the check runs in the wait.
     * A finalized partner writes no more heartbeats, which the watchdog forgives: the waiting
     * ranks used to wait for ever. The message is not the watchdog timeout's.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"finish", "finishInFinalize"})
    void shouldEndARankWaitingAtABarrierThatAFinalizedRankWillNeverReach(String mode) throws Exception {
        Result r = smirun("-np", "3", "-nodes", "local:a", "local:b", "local:b", FailingRank.class.getName(), mode);
        String out = r.output();
        assertEquals(1, r.exit(), out);
        assertTrue(out.contains("rank 2 finalized") && out.contains("callback ran"), out);
        assertTrue(out.contains("process 2 finalized after 4 barriers; this process waits at barrier 5"), out);
        assertFalse(out.contains("completed without"), out);
    }

    /**
     * Rank 0 of 2 (two daemons) waits on rank 1 (a signal from it, a signal from any rank, a signal
     * callback, the mutex rank 1 holds, rank 1's progress counter at 2, a message from it, its read
     * of rank 0's message after {@code send}, {@code sendWait} or {@code sendrecv}, a PT2PT
     * rendezvous: creation as owner or partner, free) while rank 1 enters SMI_Finalize: the wait
     * fails with OTHER within a bounded time (it is checked every 250 ms of blocking), after what
     * rank 1 gave before (a signal, the counter at 1, a message, a read, a rendezvous) was
     * consumed, and both ranks finalize. Before, both waited for ever: rank 0 in its wait, rank 1
     * at its last barrier, their watchdogs beating. Each wait of the notification waker, and the
     * two kinds (one word, any word) of the polling one ({@code SMI_WAKER=poll}). ({@code recv}
     * has no any-source form: {@code SMI_Recv} names its sender.)
     */
    @ParameterizedTest(name = "{0} with the {1} waker")
    @org.junit.jupiter.params.provider.CsvSource({"signal,notify", "signalAny,notify", "callback,notify", "mutex,notify",
        "pc,notify", "recv,notify", "send,notify", "sendWait,notify", "sendrecv,notify", "pt2ptOwner,notify",
        "pt2ptPartner,notify", "pt2ptFree,notify", "signalAny,poll", "mutex,poll", "sendrecv,poll"})
    void shouldFailAWaitOnAPartnerThatEnteredFinalizeWithOther(String mode, String waker) throws Exception {
        extraEnv.put("SMI_WAKER", waker);
        Result r = smirun("-np", "2", "-nodes", "local:a", "local:b", PartnerGoneRank.class.getName(), mode);
        String out = r.output();
        assertEquals(0, r.exit(), out);
        assertTrue(out.contains("rank 1 finalized"), out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rank 0: " + mode + " wait gave OTHER after (\\d+) ms")
            .matcher(out);
        assertTrue(m.find(), out);
        assertTrue(Long.parseLong(m.group(1)) < 30_000 * FACTOR, out);
        String before = switch (mode) {
            case "callback", "mutex" -> null;
            case "pc" -> "rank 0: the counter reached 1";
            case "send", "sendWait" -> "rank 0: the message was read before SMI_Finalize";
            case "pt2ptOwner", "pt2ptPartner" -> "rank 0: the rendezvous before SMI_Finalize completed";
            case "pt2ptFree" -> "rank 0: the free before SMI_Finalize completed";
            default -> "sent before SMI_Finalize arrived";
        };
        // Consumed first: its line comes before the failure's.
        assertTrue(before == null || (out.contains(before) && out.indexOf(before) < m.start()), out);
        assertFalse(out.contains("callback ran"), out);
    }

    /**
     * Rank 1 dies by SIGKILL (no shutdown of its JVM, no SMI_Finalize) while rank 0 waits for its
     * signal: smirun ends the job at once, not rank 0's watchdog (set to 600 s here).
     */
    @Test
    void shouldEndTheJobWhenARankIsKilledWhileAnotherWaitsForItsSignal() throws Exception {
        watchdogSeconds = "600";
        Result r = smirun("-np", "2", "-nodes", "local:a", "local:b", PartnerGoneRank.class.getName(), "kill");
        String out = r.output();
        assertEquals(137, r.exit(), out);
        assertTrue(out.contains("rank 1 kills itself") && out.contains("rank 1 exited with code 137; ending the job"), out);
        assertFalse(out.contains("rank 0: kill wait") || out.contains("no sign of life") || out.contains("outlived"), out);
    }

    @Test
    void shouldEndEveryRankAndDaemonWhenSmirunIsTerminated() throws Exception {
        Result r = smirun(" ready", 3, "-np", "3", "-nodes", "local:a", "local:b", "local:b", FailingRank.class.getName(),
            "sleep");
        assertEquals(143, r.exit(), r.output());
    }

    @Test
    void shouldWriteOneOutputFilePerRankAndRenameTheOnlyNonEmptyOne() throws Exception {
        Result r = smirun("-np", "2", "-nodes", "local:a", "local:b", "-stdout", "hello", "-stderr", "errors",
            "io.softcmi.smi.samples.HelloWorld");
        assertEquals(0, r.exit(), r.output());
        assertTrue(Files.readString(tmp.resolve("hello_0")).contains("process 0 of 2"));
        assertTrue(Files.readString(tmp.resolve("hello_1")).contains("process 1 of 2"));
        assertFalse(Files.exists(tmp.resolve("errors_0")) || Files.exists(tmp.resolve("errors_1")), "empty files removed");
        r = smirun("-np", "2", "-nodes", "local:a", "local:b", "-stdout", "regions", "io.softcmi.smi.samples.Regions");
        assertEquals(0, r.exit(), r.output());
        assertTrue(Files.readString(tmp.resolve("regions")).contains("regions: OK"), "only rank 0 prints: one file");
        assertFalse(Files.exists(tmp.resolve("regions_1")));
    }

    @Test
    void shouldGiveEveryRankTheStdinFile() throws Exception {
        Files.writeString(tmp.resolve("input"), "the line\n");
        Result r = smirun("-np", "2", "-nodes", "local:a", "local:b", "-stdin", "input", EchoStdin.class.getName());
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("rank 0 read: the line") && r.output().contains("rank 1 read: the line"),
            r.output());
    }

    @Test
    void shouldOnlyPrintTheCommandsWithDashT() throws Exception {
        Result r = smirun("-t", "-np", "2", "-nodes", "local:a", "far.example.org", "io.softcmi.smi.samples.HelloWorld");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("io.softcmi.node.Cmid"), r.output());
        assertTrue(r.output().contains("ssh far.example.org"), r.output());
        assertTrue(r.output().contains("SMI_RANK=0"), r.output());
    }

    @Test
    void shouldFailInitWithNoDeviceWhenNoNodeCanBeJoined() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-Dsoftcmi.embedded=false", "-cp", System.getProperty("java.class.path"),
            "io.softcmi.smi.samples.HelloWorld").redirectErrorStream(true);
        pb.environment().remove("SOFTCMI_NODE");
        pb.environment().remove("SMI_RANK");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("SMI_ERR_NODEVICE"), out);
    }

    @Test
    void shouldReportUsageErrors() throws Exception {
        Result r = smirun("-np", "2", "-bogus", "x");
        assertEquals(2, r.exit());
        assertTrue(r.output().contains("usage: smirun"), r.output());
    }

    @Test
    void shouldRunWithNoLocalAndDebug() throws Exception {
        Result r = smirun("-np", "2", "-nodes", "local:a", "local:a", "-nolocal", "-debug", "-v",
            "io.softcmi.smi.samples.Sync", "20");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("sync: OK"), r.output());
        assertTrue(r.output().contains("debug: SMI_Init done"), r.output());
        assertTrue(r.output().contains("smirun: node 0 local:a (pseudo): ranks 0..1"), r.output());
    }
}
