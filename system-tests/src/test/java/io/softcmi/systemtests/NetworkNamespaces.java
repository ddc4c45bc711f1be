package io.softcmi.systemtests;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A private network of Linux network namespaces for system tests: an outer user and network
 * namespace ({@code unshare -rn}, so no privilege is needed where the kernel allows unprivileged
 * user namespaces) holding a bridge {@code cmibr0}, and {@code count} inner network namespaces,
 * each joined to the bridge by a veth pair ({@code cmivN} on the bridge, {@code eth0} inside) and
 * given the address {@code 10.77.0.N/24}. Nothing is ever sent to any other address: the
 * namespaces have no route out.
 *
 * <p>Processes are started inside namespace {@code N} with the command prefix {@link #enter}
 * ({@code nsenter} into the outer user namespace and namespace N's network; it executes the
 * program in its own process, so the test holds the program's process). {@link #cut} isolates a
 * namespace with a packet filter: a {@code clsact} qdisc on its bridge port with a classic-BPF
 * program in direct-action mode that drops every packet ({@code TC_ACT_SHOT}), in both
 * directions; {@link #heal} removes it.
 *
 * <p>{@link #close()} ends everything: the namespaces live as long as the processes in them, and
 * the holders exit when this JVM closes their standard input (or dies), after at most
 * {@value #MAX_LIFETIME_SECONDS} seconds in any case; whatever is left of the outer process tree is
 * killed.
 */
final class NetworkNamespaces implements AutoCloseable {
    /** The holders exit after this long even if nobody closes their input. */
    static final int MAX_LIFETIME_SECONDS = 900;
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);
    private static final String PATH = "/usr/sbin:/sbin:/usr/bin:/bin";

    private final Process outer;
    private final OutputCapture output;
    private final OutputStream input;
    private final long[] holders;
    private final List<ProcessHandle> holderHandles = new ArrayList<>();
    private final Path script;

    private NetworkNamespaces(Process outer, OutputCapture output, long[] holders, Path script) {
        this.outer = outer;
        this.output = output;
        this.input = outer.getOutputStream();
        this.holders = holders;
        this.script = script;
    }

    /**
     * Creates the network, or aborts the test (a JUnit assumption) where this machine does not
     * allow it: no {@code unshare}, {@code nsenter}, {@code ip} or {@code tc}, user or network
     * namespaces refused, or no BPF packet filter in {@code tc}.
     *
     * @param logDir where the setup's output goes
     * @param count how many inner namespaces (1 to 200)
     * @return the network, every namespace's address reachable from the others
     * @throws IOException if a process cannot be started
     */
    static NetworkNamespaces create(Path logDir, int count) throws IOException {
        if (count < 1 || count > 200) {
            throw new IllegalArgumentException("count " + count);
        }
        for (String tool : List.of("unshare", "nsenter", "ip", "tc", "bash")) {
            Assumptions.assumeTrue(findTool(tool), "no '" + tool + "' on this machine: cannot build network namespaces");
        }
        String probe = run(List.of("unshare", "-rn", "ip", "link", "add", "cmiprobe0", "type", "bridge"));
        Assumptions.assumeTrue(probe == null, "this machine does not let the test create a user and network namespace"
            + " with a bridge (unshare -rn ip link add ... type bridge): " + probe);
        Files.createDirectories(logDir);
        Path script = Files.createTempFile("softcmi-netns-", ".sh");
        Files.writeString(script, SCRIPT, StandardCharsets.UTF_8);
        ProcessBuilder pb = new ProcessBuilder("unshare", "-rn", "bash", script.toString(), Integer.toString(count),
            Integer.toString(MAX_LIFETIME_SECONDS)).redirectErrorStream(true);
        pb.environment().put("PATH", PATH + ":" + pb.environment().getOrDefault("PATH", ""));
        Process p = pb.start();
        OutputCapture out = new OutputCapture("netns", p.getInputStream(), logDir.resolve("netns.log"));
        long[] holders = new long[count];
        NetworkNamespaces net = new NetworkNamespaces(p, out, holders, script);
        try {
            Deadline deadline = Deadline.in(SETUP_TIMEOUT);
            String first = out.awaitLine("namespace setup", l -> l.startsWith("NS ") || l.equals("NOTC"), deadline);
            Assumptions.assumeFalse(first.equals("NOTC"),
                "tc cannot attach a BPF drop filter here (clsact + bpf da): no packet filter to cut a namespace off");
            for (int i = 0; i < count; i++) {
                String line = i == 0 ? first : out.awaitLine("namespace setup", l -> l.startsWith("NS "), deadline);
                String[] w = line.split(" ");
                holders[Integer.parseInt(w[1]) - 1] = Long.parseLong(w[2]);
                ProcessHandle.of(Long.parseLong(w[2])).ifPresent(net.holderHandles::add);
            }
            out.awaitLine("namespace network ready", "READY"::equals, deadline);
        } catch (RuntimeException | Error e) {
            net.close();
            throw e;
        }
        return net;
    }

    /**
     * Sets up, as the outer namespace's root: loopback, the bridge, a BPF filter probe, then per
     * namespace a holder process ({@code unshare -n}, waiting on this JVM's pipe), its veth pair and
     * address. Prints {@code NS n pid} per namespace and {@code READY}, then waits for its input to
     * close and ends the holders.
     */
    private static final String SCRIPT = """
        set -eu
        count=$1; life=$2
        exec 3<&0
        holders=""
        trap 'for h in $holders; do kill $h 2>/dev/null || true; done' EXIT
        ip link set lo up
        ip link add cmibr0 type bridge
        ip link set cmibr0 up
        if ! { tc qdisc add dev cmibr0 clsact && tc filter add dev cmibr0 ingress bpf da bytecode '1,6 0 0 2,' \\
                && tc qdisc del dev cmibr0 clsact; } >/dev/null 2>&1; then
            echo NOTC; exit 0
        fi
        outer=$(readlink /proc/self/ns/net)
        for i in $(seq 1 "$count"); do
            unshare -n bash -c 'read -r -t "$1" _ || true' holder "$life" <&3 &
            h=$!; holders="$holders $h"
            for t in $(seq 1 200); do
                [ "$(readlink /proc/$h/ns/net 2>/dev/null || echo "$outer")" != "$outer" ] && break
                sleep 0.05
            done
            [ "$(readlink /proc/$h/ns/net)" != "$outer" ]
            ip link add "cmiv$i" type veth peer name eth0 netns "$h"
            ip link set "cmiv$i" master cmibr0
            ip link set "cmiv$i" up
            nsenter -t "$h" -n sh -c "ip link set lo up && ip addr add 10.77.0.$i/24 dev eth0 && ip link set eth0 up"
            echo "NS $i $h"
        done
        echo READY
        read -r -t "$life" _ <&3 || true
        """;

    private static boolean findTool(String name) {
        for (String dir : (PATH + ":" + System.getenv().getOrDefault("PATH", "")).split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return true;
            }
        }
        return false;
    }

    /** Runs a short command; null when it succeeded, else its output and status. */
    private static String run(List<String> command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", PATH + ":" + pb.environment().getOrDefault("PATH", ""));
        Process p = pb.start();
        p.getOutputStream().close();
        try {
            if (!p.waitFor(Deadline.scaled(COMMAND_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                return "timed out: " + command;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new AssertionError("interrupted", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
    }

    /**
     * @param n a namespace, 1 to count
     * @return its address, {@code 10.77.0.n}
     */
    static String address(int n) {
        return "10.77.0." + n;
    }

    /**
     * The command prefix that runs a program in namespace {@code n}: the outer user namespace
     * (where this JVM's user is root) and namespace n's network. The program keeps the test's
     * mount namespace, so it sees the same files ({@code /tmp}, {@code /dev/shm}).
     *
     * @param n a namespace, 1 to count
     * @return the words to put before the program
     */
    List<String> enter(int n) {
        return List.of("nsenter", "--target", Long.toString(holders[n - 1]), "--user", "--net",
            "--preserve-credentials");
    }

    /**
     * Cuts namespace {@code n} off the bridge: every packet to or from it is dropped.
     *
     * @param n a namespace
     */
    void cut(int n) {
        inOuter("tc", "qdisc", "add", "dev", "cmiv" + n, "clsact");
        inOuter("tc", "filter", "add", "dev", "cmiv" + n, "ingress", "bpf", "da", "bytecode", "1,6 0 0 2,");
        inOuter("tc", "filter", "add", "dev", "cmiv" + n, "egress", "bpf", "da", "bytecode", "1,6 0 0 2,");
    }

    /**
     * Removes the filter of {@link #cut}.
     *
     * @param n a namespace
     */
    void heal(int n) {
        inOuter("tc", "qdisc", "del", "dev", "cmiv" + n, "clsact");
    }

    /**
     * @param n a namespace
     * @return how many packets the filter of {@link #cut} dropped so far, both directions (the
     *     {@code clsact} qdisc's statistics, {@code tc -s qdisc show}); 0 when there is no filter
     */
    long dropped(int n) {
        String out = inOuterOutput("tc", "-s", "qdisc", "show", "dev", "cmiv" + n);
        int clsact = out.indexOf("qdisc clsact");
        if (clsact < 0) {
            return 0;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("dropped (\\d+)").matcher(out.substring(clsact));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private void inOuter(String... command) {
        inOuterOutput(command);
    }

    private String inOuterOutput(String... command) {
        List<String> cmd = new ArrayList<>(List.of("nsenter", "--target", Long.toString(outer.pid()), "--user", "--net",
            "--preserve-credentials"));
        cmd.addAll(List.of(command));
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().put("PATH", PATH + ":" + pb.environment().getOrDefault("PATH", ""));
            Process p = pb.start();
            p.getOutputStream().close();
            if (!p.waitFor(Deadline.scaled(COMMAND_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + cmd);
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new AssertionError(cmd + " failed with " + p.exitValue() + ": " + out);
            }
            return out;
        } catch (IOException e) {
            throw new AssertionError("cannot run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Ends the holders and the outer process (closing their input), then kills whatever of the
     * outer process tree is left, and removes the script.
     */
    @Override
    public void close() throws IOException {
        try {
            input.close();
        } catch (IOException ignored) {
            // Gone already.
        }
        try {
            if (!outer.waitFor(Deadline.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS)) {
                outer.descendants().forEach(ProcessHandle::destroyForcibly);
                outer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            holderHandles.forEach(ProcessHandle::destroyForcibly); // (a handle knows its start time: no reused pid)
            output.drain();
            Files.deleteIfExists(script);
        }
    }
}
